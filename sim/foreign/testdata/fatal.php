<?php
// locksim: ttl=1s
function acquire()
{
    eval('function release($lease) {}'); // a compile error at run time: fatal, not an exception
    return true;
}
function release($lease)
{
}
