<?php
// locksim: ttl=1s
// Connects while it loads: the connect is held for the first call.
require '/usr/share/php/Predis/autoload.php';
$r = new Predis\Client(['host' => locksim_host(0), 'port' => locksim_port(0)]);
$r->connect();
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
