<?php
// A locksim worker (docs/foreign.md): the shim first, then the program,
// then the controller's calls, one at a time. php runs it with uopz.exit=1,
// so that a finding's exit() ends the process.

require __DIR__ . '/locksim.php';

// With --zygote, the process serves fork requests on fd 3 first
// (LockSim::zygote) and each child goes on below with the socket its request
// passed, as a fresh worker goes on with fd 3. The zygote has compiled the
// shim only: a child installs it, loads its program and is seeded after the
// fork, as a fresh worker does.
if (in_array('--zygote', $argv, true)) {
    LockSim::$ctl = LockSim::zygote();
} else {
    LockSim::$ctl = fopen('php://fd/3', 'r+');
}
LockSim::install();

// The worker's life: hello, init, load the program, then calls.
LockSim::send(['op' => 'hello', 'lang' => 'php', 'version' => PHP_VERSION, 'pid' => getmypid()]);
$__locksim = LockSim::recv();
LockSim::$nodes = $__locksim['nodes'];
LockSim::$params = $__locksim['params'] ?? [];
LockSim::$name = $__locksim['name'];
LockSim::setClocks($__locksim);
LockSim::seed($__locksim['seed']);
chdir(dirname($__locksim['program']));
$argv = [$__locksim['program']];
$argc = 1;

// A fatal error (not an exception: a redeclared function, memory) ends
// the script; the shutdown function answers the call it broke, and every
// later one, with it.
register_shutdown_function(function () {
    if (LockSim::$dead || !LockSim::$ctl) {
        return;
    }
    $e = error_get_last();
    $msg = $e ? sprintf('PHP Fatal error: %s', strtok($e['message'], "\n")) : 'the program exited';
    LockSim::send(['op' => 'raise', 'error' => $msg]);
    for (;;) {
        $m = LockSim::recv();
        LockSim::send(['op' => 'raise', 'error' => $msg]);
    }
});

function locksim_one_line(Throwable $e)
{
    $msg = $e->getMessage();
    $text = $msg === '' ? get_class($e) : get_class($e) . ': ' . $msg;
    return strtok($text, "\n");
}

LockSim::$loading = true;
try {
    // At the top level, so that the program's variables are global, as
    // when php runs it.
    require $__locksim['program'];
} catch (Throwable $__e) {
    LockSim::$loading = false;
    LockSim::send(['op' => 'raise', 'error' => locksim_one_line($__e)]);
    LockSim::recv();
    LockSim::$dead = true;
    exit(0);
}
LockSim::$loading = false;
unset($__locksim, $__e);

function locksim_serve()
{
    $fns = array_values(array_filter(['acquire', 'release', 'extend'], 'function_exists'));
    LockSim::send(['op' => 'ready', 'fns' => $fns]);
    $lease = null;
    for (;;) {
        $m = LockSim::recv();
        LockSim::setClocks($m);
        LockSim::flush();
        $fn = $m['fn'];
        try {
            $v = $fn === 'acquire' ? acquire() : $fn($lease);
        } catch (Throwable $e) {
            LockSim::send(['op' => 'raise', 'error' => locksim_one_line($e)]);
            continue;
        }
        if ($fn === 'acquire') {
            $lease = $v;
        }
        LockSim::send(['op' => 'return', 'held' => (bool) $v, 'token' => is_string($v) ? $v : null]);
    }
}

locksim_serve();
