-- Sluice fleet heartbeat: one sorted set of live nodes, scored by when each expires.
--
-- KEYS[1]  sluice:nodes
-- ARGV[1]  node id
-- ARGV[2]  TTL in ms ('0' = this node leaves)
-- Reply: the number of live nodes.
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms)
if ttl > 0 then
  redis.call('ZADD', KEYS[1], now_ms + ttl, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl * 2)
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return redis.call('ZCARD', KEYS[1])
