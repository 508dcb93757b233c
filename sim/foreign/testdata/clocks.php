<?php
// locksim: ttl=1s
// What the shim answers for PHP's clocks and random sources, as a token.
function acquire()
{
    $h0 = hrtime(true);
    $m0 = microtime(true);
    usleep(250000);
    $h1 = hrtime(true);
    [$s, $ns] = hrtime();
    return implode(' ', [
        time(),
        $h1 - $h0,
        (int) round((microtime(true) - $m0) * 1000),
        $s * 1000000000 + $ns === $h1 ? 'hrtime-same' : 'hrtime-differs',
        bin2hex(random_bytes(8)),
        mt_rand(),
        random_int(1, 1000000),
        uniqid() !== uniqid() ? 'uniqid-unique' : 'uniqid-repeats',
        date('Y-m-d H:i:s') === gmdate('Y-m-d H:i:s', time()) ? 'date-now' : 'date-other',
    ]);
}
function release($lease)
{
}
