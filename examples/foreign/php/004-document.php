public function execute($resourceId)
{
    $this->getLock($resourceId);
    try {
        //do your CURD
    } finally {
        $this->unlock($resourceId);
    }
}

private function getLock($resourceId)
{
    while (!$this->_getLock($resourceId)) {
        usleep(200000); // 等待获得锁
    }
}

/**
 *
 * @param $resourceId
 * @return bool
 */
private function _getLock($resourceId)
{
    $key = 'your_lock_prefix_' . $resourceId;
    $now = time();
    $value = $now + 30; // 设置锁过期时间为当前系统时间 + 30秒
    $success = (int)$this->redis->setnx($key, $value);
    if ($success > 0) { // 无锁状态
        return true;
    }
    // 有锁状态
    $oldValue = (int)$this->redis->get($key);
    if ($oldValue > $now) { // 锁未过期
        return false;
    } else {    // 锁已过期
        $oldValue = (int)$this->redis->set($key, $value, 'GET');
        return $oldValue < $now;
    }
}

private function unlock($resourceId)
{
    $key = 'your_lock_prefix_' . $resourceId;
    $this->redis->del($key);
}
