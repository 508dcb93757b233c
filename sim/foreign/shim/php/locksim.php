<?php
// locksim's PHP shim: lock code runs unmodified in simulated time.
//
// Required first by a worker (locksim_worker.php), it replaces, through the
// uopz extension, what a lock program could read of the world with the
// simulation's, and turns every sleep, connection, write and blocking read
// into a message to the Go controller (docs/foreign.md, the protocol):
// time/microtime/hrtime/gettimeofday and the calendar functions without a
// timestamp, usleep/sleep/time_nanosleep/time_sleep_until, random_bytes/
// random_int/lcg_value/uniqid and the seeding of mt_rand, and
// stream_socket_client/fsockopen, whose streams are a "locksim://" stream
// wrapper's. predis (pure PHP) reaches its node through exactly these:
// stream_socket_client, stream_set_timeout, fwrite, fgets, fread, fclose.
// phpredis opens its sockets in C, where nothing here can see them.
//
// A program reads the run's nodes (locksim_nodes(), locksim_host($i),
// locksim_port($i)) and its lock parameters (locksim_params()).

final class LockSim
{
    public static $nodes = [];   // the run's nodes as "host:port", node 0 first
    public static $params = [];  // the run's lock parameters: key, ttl_ms, ...
    public static $name = '';    // the simulated client's name ("c1")
    public static $ctl;          // the protocol socket (fd 3)
    public static $wall = 0;     // the worker's clocks, in ns, as last told
    public static $mono = 0;
    public static $reads = 0;    // clock reads since the last wait
    public static $nextConn = 1;
    public static $pending = null; // the connection a locksim:// open takes
    public static $dead = false;   // a finding was sent: say nothing more
    public static $rng = '';       // the state of the worker's own random bytes
    public static $rngN = 0;
    // loading: the program is being loaded, outside any call. What it
    // sends then (a connection made at load) is held for the first call.
    public static $loading = false;
    public static $held = [];
    const SPIN_READS = 1000000;

    // ------------------------------------------------------------ protocol

    public static function send(array $m)
    {
        if (self::$dead) {
            return;
        }
        if (self::$loading && $m['op'] !== 'finding' && $m['op'] !== 'raise' && $m['op'] !== 'ready') {
            self::$held[] = $m;
            return;
        }
        $line = json_encode($m, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE) . "\n";
        for ($off = 0; $off < strlen($line);) {
            $n = fwrite(self::$ctl, substr($line, $off));
            if ($n === false || $n === 0) {
                self::$dead = true;
                exit(0); // the controller is gone: so is this run
            }
            $off += $n;
        }
    }

    public static function recv()
    {
        $line = fgets(self::$ctl);
        if ($line === false) {
            self::$dead = true;
            exit(0); // the controller is gone
        }
        return json_decode($line, true, 64, JSON_BIGINT_AS_STRING);
    }

    public static function setClocks(array $m)
    {
        self::$wall = (int) $m['wall'];
        self::$mono = (int) $m['mono'];
        self::$reads = 0;
    }

    // finding reports what the simulation cannot see, and ends the worker.
    public static function finding($msg)
    {
        self::send(['op' => 'finding', 'msg' => $msg]);
        self::$dead = true;
        exit(0);
    }

    // wait blocks until bytes come on one of $conns, one closes, or
    // $timeoutNs of true time pass (null: none).
    public static function wait(array $conns, $timeoutNs)
    {
        if (self::$loading) {
            throw new RuntimeException('locksim: the program waits (a reply, a sleep) while it loads, outside any call: no simulated time passes there');
        }
        $m = ['op' => 'wait', 'conns' => $conns];
        if ($timeoutNs !== null) {
            $m['timeout'] = sprintf('%d', max(0, (int) $timeoutNs));
        }
        self::send($m);
        $ev = self::recv();
        self::setClocks($ev);
        return $ev;
    }

    // flush sends what the program sent while it loaded, in the first call.
    public static function flush()
    {
        $held = self::$held;
        self::$held = [];
        foreach ($held as $m) {
            self::send($m);
        }
    }

    // ------------------------------------------------------------ time

    public static function read()
    {
        if (++self::$reads > self::SPIN_READS) {
            self::finding(sprintf('spins: read its clock %d times without waiting (a busy loop the simulation cannot advance)', self::SPIN_READS));
        }
    }

    public static function wallNs()
    {
        self::read();
        return self::$wall;
    }

    public static function monoNs()
    {
        self::read();
        return self::$mono;
    }

    public static function sleepNs($ns)
    {
        if ($ns > 0) { // a sleep of 0 gives way to no one here: no time passes
            self::wait([], $ns);
        }
    }

    // ------------------------------------------------------------ random

    public static function seed($seed)
    {
        $h = hash('sha256', 'mt:' . $seed, true);
        mt_srand(unpack('J', $h)[1] & 0x7fffffff);
        self::$rng = hash('sha256', 'bytes:' . $seed, true);
        self::$rngN = 0;
    }

    // bytes are the worker's own random bytes, a hash chain from its seed:
    // the program's mt_rand sequence is its own.
    public static function bytes($n)
    {
        $out = '';
        while (strlen($out) < $n) {
            $out .= hash('sha256', self::$rng . pack('J', self::$rngN++), true);
        }
        return substr($out, 0, $n);
    }

    public static function uint63()
    {
        return unpack('J', self::bytes(8))[1] & PHP_INT_MAX;
    }

    public static function randomInt($min, $max)
    {
        if ($min > $max) {
            throw new ValueError('random_int(): Argument #1 ($min) must be less than or equal to argument #2 ($max)');
        }
        if ($min === PHP_INT_MIN && $max === PHP_INT_MAX) {
            return unpack('q', self::bytes(8))[1];
        }
        $span = $max - $min; // may overflow to float for the widest ranges
        if (!is_int($span) || $span === PHP_INT_MAX) {
            do {
                $v = unpack('q', self::bytes(8))[1];
            } while ($v < $min || $v > $max);
            return $v;
        }
        $range = $span + 1;
        $limit = PHP_INT_MAX - (PHP_INT_MAX % $range) - 1;
        do {
            $v = self::uint63();
        } while ($v > $limit);
        return $min + $v % $range;
    }

    // ------------------------------------------------------------ sockets

    // nodeAddr is the node a host and port name, or null.
    public static function nodeAddr($host, $port)
    {
        $host = trim($host, '[]');
        if ($host === 'localhost' || $host === '::1' || $host === 'ip6-localhost') {
            $host = '127.0.0.1';
        }
        $addr = $host . ':' . $port;
        return in_array($addr, self::$nodes, true) ? $addr : null;
    }

    // dial opens a simulated connection to $host:$port, a node's, and gives
    // its stream; $rwTimeout is its read timeout in seconds.
    public static function dial($target, $host, $port, $rwTimeout)
    {
        $addr = self::nodeAddr($host, $port);
        if ($addr === null) {
            self::finding(sprintf('dials %s, which is not a node of the run (%s)', $target, implode(', ', self::$nodes)));
        }
        $id = self::$nextConn++;
        self::send(['op' => 'connect', 'conn' => $id, 'addr' => $addr]);
        self::$pending = [$id, $addr, $rwTimeout];
        $s = fopen('locksim://' . $id, 'r+');
        self::$pending = null;
        return $s;
    }

    public static function splitTarget($target)
    {
        // tcp://host:port[/persistent-id], host:port, [v6]:port
        $t = $target;
        if (preg_match('~^([a-z0-9.+-]+)://~i', $t, $m)) {
            $scheme = strtolower($m[1]);
            if ($scheme !== 'tcp') {
                self::finding(sprintf('opens %s (%s://), which the shim does not simulate: only tcp:// to a node', $target, $scheme));
            }
            $t = substr($t, strlen($m[0]));
        }
        $t = explode('/', $t, 2)[0];
        $i = strrpos($t, ':');
        if ($i === false) {
            self::finding(sprintf('dials %s, which names no port', $target));
        }
        return [substr($t, 0, $i), substr($t, $i + 1)];
    }

    // ------------------------------------------------------------ zygote

    // zygote serves fork requests on fd 3 until it closes: each is one byte
    // with a socket passed along (SCM_RIGHTS, zygote.go). It returns in each
    // child, with that socket as a stream. Called before install, which
    // takes pcntl_fork and ext/sockets from the program.
    public static function zygote()
    {
        $ctl = socket_import_stream(fopen('php://fd/3', 'r+'));
        pcntl_signal(SIGCHLD, SIG_IGN); // children reap themselves
        for (;;) {
            $m = ['name' => [], 'buffer_size' => 1, 'controllen' => socket_cmsg_space(SOL_SOCKET, SCM_RIGHTS, 1)];
            if (!socket_recvmsg($ctl, $m, 0) || empty($m['control'][0]['data'][0])) {
                exit(0); // the controller is gone
            }
            $sock = $m['control'][0]['data'][0];
            $pid = pcntl_fork();
            if ($pid === 0) {
                socket_close($ctl);
                pcntl_signal(SIGCHLD, SIG_DFL);
                $s = socket_export_stream($sock);
                stream_set_timeout($s, 365 * 86400); // the controller times a worker out, not the stream
                return $s;
            }
            socket_close($sock);
        }
    }

    // ------------------------------------------------------------ install

    private static function set($fn, Closure $c)
    {
        uopz_set_return($fn, $c, true);
    }

    // install replaces the clocks, sleeps, random sources, sockets and
    // processes, before any program code runs.
    public static function install()
    {
        self::set('time', function () {
            return intdiv(LockSim::wallNs(), 1000000000);
        });
        self::set('microtime', function ($asFloat = false) {
            $ns = LockSim::wallNs();
            if ($asFloat) {
                return $ns / 1e9;
            }
            $us = intdiv($ns, 1000);
            return sprintf('%.8F %d', ($us % 1000000) / 1e6, intdiv($us, 1000000));
        });
        self::set('gettimeofday', function ($asFloat = false) {
            $ns = LockSim::wallNs();
            if ($asFloat) {
                return $ns / 1e9;
            }
            $us = intdiv($ns, 1000);
            return ['sec' => intdiv($us, 1000000), 'usec' => $us % 1000000, 'minuteswest' => 0, 'dsttime' => 0];
        });
        self::set('hrtime', function ($asNumber = false) {
            $ns = LockSim::monoNs();
            return $asNumber ? $ns : [intdiv($ns, 1000000000), $ns % 1000000000];
        });
        $now = function () {
            return intdiv(LockSim::wallNs(), 1000000000);
        };
        foreach (['date', 'gmdate', 'idate', 'getdate', 'localtime', 'strftime', 'gmstrftime'] as $fn) {
            // The timestamp is the last argument but one for localtime
            // (timestamp, associative); the second for the rest.
            $at = $fn === 'getdate' ? 0 : 1;
            if ($fn === 'localtime') {
                $at = 0;
            }
            if (!function_exists($fn)) {
                continue;
            }
            self::set($fn, function (...$a) use ($fn, $at, $now) {
                if (!isset($a[$at])) {
                    for ($i = count($a); $i < $at; $i++) {
                        $a[$i] = $fn === 'localtime' ? false : '';
                    }
                    $a[$at] = $now();
                }
                return @$fn(...$a);
            });
        }
        foreach (['mktime', 'gmmktime'] as $fn) {
            self::set($fn, function (...$a) use ($fn, $now) {
                $t = $now();
                $d = gmdate('H i s n j Y', $t);
                if ($fn === 'mktime') {
                    $d = date('H i s n j Y', $t);
                }
                $def = array_map('intval', explode(' ', $d));
                for ($i = 0; $i < 6; $i++) {
                    if (!isset($a[$i])) {
                        $a[$i] = $def[$i];
                    }
                }
                return $fn(...$a);
            });
        }
        self::set('strtotime', function ($s, $base = null) use ($now) {
            return strtotime($s, $base ?? $now());
        });
        foreach (['date_create', 'date_create_immutable'] as $fn) {
            self::set($fn, function ($s = 'now', $tz = null) use ($fn) {
                if ($s === null || $s === '' || strtolower($s) === 'now') {
                    LockSim::finding(sprintf('reads the host clock through %s(), which the shim does not simulate (date("...", time()) reads the simulated one)', $fn));
                }
                return $fn($s, $tz);
            });
        }

        self::set('usleep', function ($us) {
            if ($us < 0) {
                throw new ValueError('usleep(): Argument #1 ($microseconds) must be greater than or equal to 0');
            }
            LockSim::sleepNs($us * 1000);
        });
        self::set('sleep', function ($s) {
            if ($s < 0) {
                throw new ValueError('sleep(): Argument #1 ($seconds) must be greater than or equal to 0');
            }
            LockSim::sleepNs($s * 1000000000);
            return 0;
        });
        self::set('time_nanosleep', function ($s, $ns) {
            LockSim::sleepNs($s * 1000000000 + $ns);
            return true;
        });
        self::set('time_sleep_until', function ($ts) {
            $left = (int) round($ts * 1e9) - LockSim::wallNs();
            if ($left <= 0) {
                trigger_error('time_sleep_until(): Argument #1 ($timestamp) must be greater than or equal to the current time', E_USER_WARNING);
                return false;
            }
            LockSim::sleepNs($left);
            return true;
        });

        self::set('random_bytes', function ($n) {
            return LockSim::bytes($n);
        });
        self::set('random_int', function ($min, $max) {
            return LockSim::randomInt($min, $max);
        });
        self::set('lcg_value', function () {
            return LockSim::uint63() / PHP_INT_MAX;
        });
        foreach (['mt_srand', 'srand'] as $fn) {
            self::set($fn, function ($seed = null, $mode = MT_RAND_MT19937) use ($fn) {
                // With no seed PHP seeds from the host's randomness.
                $fn($seed ?? LockSim::randomInt(0, 0x7fffffff), $mode);
            });
        }
        self::set('uniqid', function ($prefix = '', $moreEntropy = false) {
            // PHP's sleeps a microsecond first, so two are never equal.
            if (!$moreEntropy) {
                LockSim::sleepNs(1000);
            }
            $us = intdiv(LockSim::wallNs(), 1000);
            $id = sprintf('%s%08x%05x', $prefix, intdiv($us, 1000000), $us % 1000000);
            return $moreEntropy ? $id . sprintf('%.8F', lcg_value() * 10) : $id;
        });

        self::set('stream_socket_client', function ($target, &$errno = null, &$errstr = null, $timeout = null, $flags = STREAM_CLIENT_CONNECT, $context = null) {
            if ($flags & STREAM_CLIENT_ASYNC_CONNECT) {
                LockSim::finding('connects asynchronously (STREAM_CLIENT_ASYNC_CONNECT), which the shim does not simulate');
            }
            [$host, $port] = LockSim::splitTarget($target);
            $errno = 0;
            $errstr = '';
            return LockSim::dial($target, $host, $port, (float) ini_get('default_socket_timeout'));
        });
        self::set('fsockopen', function ($host, $port = -1, &$errno = null, &$errstr = null, $timeout = null) {
            $target = $port < 0 ? $host : $host . ':' . $port;
            [$h, $p] = LockSim::splitTarget($target);
            $errno = 0;
            $errstr = '';
            return LockSim::dial($target, $h, $p, (float) ini_get('default_socket_timeout'));
        });
        self::set('pfsockopen', function ($host) {
            LockSim::finding('opens a persistent socket (pfsockopen), which the shim does not simulate');
        });
        self::set('stream_select', function () {
            LockSim::finding('waits on streams with stream_select(), which the shim does not simulate');
        });
        foreach (['socket_create', 'socket_connect', 'socket_import_stream'] as $fn) {
            if (function_exists($fn)) {
                self::set($fn, function () use ($fn) {
                    LockSim::finding(sprintf('opens a socket through ext/sockets (%s), which the shim does not simulate', $fn));
                });
            }
        }
        foreach (['pcntl_fork', 'pcntl_rfork', 'pcntl_exec', 'proc_open', 'popen', 'exec', 'shell_exec', 'system', 'passthru'] as $fn) {
            if (function_exists($fn)) {
                self::set($fn, function () use ($fn) {
                    LockSim::finding(sprintf('starts a process (%s): a worker runs one thread of control, the simulation\'s', $fn));
                });
            }
        }
        foreach (['getrusage', 'hrtime_cpu'] as $fn) {
            if (function_exists($fn)) {
                self::set($fn, function () use ($fn) {
                    LockSim::finding(sprintf('reads CPU time (%s), which a simulated client does not have', $fn));
                });
            }
        }
        stream_wrapper_register('locksim', 'LockSimStream');
    }
}

// LockSimStream is a TCP connection to a simulated node: its bytes are
// protocol messages.
final class LockSimStream
{
    public $context;
    private $id;
    private $buf = '';
    private $eof = false;   // the other side closed it
    private $closed = false;
    private $timeout;       // read timeout, seconds; < 0: none
    private $blocking = true;

    public function stream_open($path, $mode, $options, &$opened)
    {
        if (LockSim::$pending === null) {
            LockSim::finding(sprintf('opens %s itself: locksim:// streams are the shim\'s', $path));
        }
        [$this->id, , $this->timeout] = LockSim::$pending;
        return true;
    }

    public function stream_write($data)
    {
        if ($this->closed) {
            return false;
        }
        if ($this->eof) {
            return false; // written on a socket the peer closed: EPIPE
        }
        if ($data !== '') {
            LockSim::send(['op' => 'send', 'conn' => $this->id, 'data' => base64_encode($data)]);
        }
        return strlen($data);
    }

    public function stream_read($count)
    {
        if ($this->buf === '' && !$this->eof && !$this->closed) {
            if (!$this->blocking || $this->timeout == 0) {
                return ''; // no time passes between messages: nothing can have come
            }
            $ev = LockSim::wait([$this->id], $this->timeout < 0 ? null : (int) round($this->timeout * 1e9));
            switch ($ev['ev']) {
                case 'data':
                    $this->buf .= base64_decode($ev['data']);
                    break;
                case 'eof':
                    $this->eof = true;
                    break;
                case 'timeout':
                    return false; // a read timeout: fgets and fread answer false
            }
        }
        $out = (string) substr($this->buf, 0, $count);
        $this->buf = (string) substr($this->buf, strlen($out));
        return $out;
    }

    public function stream_eof()
    {
        return $this->buf === '' && ($this->eof || $this->closed);
    }

    public function stream_flush()
    {
        return true;
    }

    public function stream_close()
    {
        if (!$this->closed) {
            $this->closed = true;
            LockSim::send(['op' => 'close', 'conn' => $this->id]);
        }
    }

    public function stream_set_option($option, $arg1, $arg2)
    {
        switch ($option) {
            case STREAM_OPTION_READ_TIMEOUT:
                $this->timeout = $arg1 + $arg2 / 1e6;
                return true;
            case STREAM_OPTION_BLOCKING:
                $this->blocking = (bool) $arg1;
                return true;
        }
        return false;
    }

    public function stream_cast($as)
    {
        return false;
    }

    public function stream_stat()
    {
        return [];
    }
}

function locksim_nodes()
{
    return LockSim::$nodes;
}

function locksim_params()
{
    return LockSim::$params;
}

function locksim_name()
{
    return LockSim::$name;
}

function locksim_host($i = 0)
{
    $a = LockSim::$nodes[$i];
    return substr($a, 0, strrpos($a, ':'));
}

function locksim_port($i = 0)
{
    $a = LockSim::$nodes[$i];
    return (int) substr($a, strrpos($a, ':') + 1);
}

function locksim_log($msg)
{
    LockSim::send(['op' => 'log', 'msg' => (string) $msg]);
}
