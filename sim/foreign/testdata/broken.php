<?php
// locksim: ttl=1s
function acquire(
