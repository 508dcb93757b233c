<?php
// locksim: ttl=1s
function acquire()
{
    $deadline = microtime(true) + 1;
    while (microtime(true) < $deadline) { // a busy wait: the clock stands still
    }
    return true;
}
function release($lease)
{
}
