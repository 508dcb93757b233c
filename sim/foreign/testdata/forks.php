<?php
# locksim: ttl=1s
function acquire()
{
    $pid = pcntl_fork();
    return $pid >= 0;
}
function release($lease)
{
}
