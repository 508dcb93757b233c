<?php
// locksim: ttl=1s
require '/usr/share/php/Predis/autoload.php';
$r = new Predis\Client(); // predis's default address, 127.0.0.1:6379: not a node
function acquire()
{
    global $r;
    return $r->set('lock', 'x', 'PX', 1000, 'NX') !== null;
}
function release($lease)
{
    global $r;
    $r->del('lock');
}
