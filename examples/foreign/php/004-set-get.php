<?php
// locksim: ttl=30s lifetime=31s resolution=1s expiry=timestamp key=your_lock_prefix_1
// locksim: files=004-document.php source=004_4f88c610a240f1d1.txt

// 004's PHP, run as the post gives it.
//
// 004-document.php is the post's code block ("PHP伪代码实现"), lines 64-109
// of the seed, pasted verbatim: the body of a class (execute, getLock,
// _getLock, unlock) that names $this->redis and never declares its class.
// PHP cannot include a fragment inside a class, so this harness reads the
// file and evaluates it as the body of `class Lock004 {` ... `}`: those
// two lines are all the wrapper adds. $this->redis is predis 1.1.10
// (Debian's php-nrk-predis, pure PHP: its socket is the shim's) on node 0,
// with predis's defaults; the lock's resource id is 1, so its key is
// your_lock_prefix_1. acquire() is the private getLock(1) (it returns only
// once it holds the lock), release() the private unlock(1), called from
// the class's own scope as execute() calls them.

require '/usr/share/php/Predis/autoload.php';

eval("class Lock004 {\n" . file_get_contents(__DIR__ . '/004-document.php') . "}\n");

// Lock004 with the property the post's class must have had: declared, as
// PHP 8.2 asks (a dynamic property is deprecated).
class Lock004Client extends Lock004
{
    public $redis;
}

$lock = new Lock004Client();
$lock->redis = new Predis\Client(['host' => locksim_host(0), 'port' => locksim_port(0)]);
$getLock = Closure::bind(function ($id) { $this->getLock($id); }, $lock, Lock004::class);
$unlock = Closure::bind(function ($id) { $this->unlock($id); }, $lock, Lock004::class);

function acquire()
{
    global $getLock;
    $getLock(1);
    return true;
}

function release($lease)
{
    global $unlock;
    $unlock(1);
}
