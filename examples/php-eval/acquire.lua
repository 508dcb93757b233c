-- 日志
local function log_debug(msg)
redis.log(redis.LOG_DEBUG, string.format("[申请加锁]%s", msg))
end
log_debug('开始')
-- 被当作锁的键名
local key_lock = KEYS[1]
-- 锁的过期时间戳
local key_lock_expired = tonumber(ARGV[1])
-- 锁的有效期
local key_lock_expire = tonumber(ARGV[2])
-- 当前时间戳
local time_now = tonumber(ARGV[3])
local res = redis.call('SETNX', key_lock, key_lock_expired)
-- 获取锁成功
if (res == 1) then
redis.call('EXPIRE', key_lock, key_lock_expire + 1)
log_debug('成功')
return 0
end
local expired = redis.call('GET', key_lock)
-- 锁被其他进程删除
if (not expired) then
log_debug('锁被其他进程删除,请再重新申请')
return 1
end
expired = tonumber(expired)
-- 其他进程加的锁还未过期
if (expired > time_now) then
log_debug('锁还未过期,请休眠后再申请')
return 2
end
local key_lock_expired_new = key_lock_expired + key_lock_expire + 1
local expired_old = tonumber(redis.call('GETSET', key_lock, key_lock_expired_new))
if (expired_old == expired) then
redis.call('EXPIRE', key_lock, key_lock_expire + 1)
log_debug('锁过期,getset加锁成功')
return 0
end
-- 锁被其他进程删除或被其他进程抢占先机执行了 redis 的 getset 方法
log_debug('锁被其他进程删除或抢占先机,请再重新申请')
return 3