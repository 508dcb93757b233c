<?php
// locksim: ttl=1s
require '/usr/share/php/Predis/autoload.php';
$r = new Predis\Client(['host' => locksim_host(0), 'port' => locksim_port(0)]);
$r->get('lock'); // a reply awaited at load, outside any call
function acquire()
{
    return true;
}
function release($lease)
{
}
