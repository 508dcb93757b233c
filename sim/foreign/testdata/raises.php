<?php
// locksim: ttl=1s
function acquire()
{
    return intdiv(1, 0);
}
function release($lease)
{
}
