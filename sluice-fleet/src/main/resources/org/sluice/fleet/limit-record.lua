-- Sluice fleet limiter: the fleet's current limit of one FleetLimiter name, for
-- FleetLimiter.replaceBandwidths (write) and for nodes that learn their limit is stale
-- or start after a change (read).
--
-- KEYS[1]  a hash: version (an integer counting live changes), change (the LimitChange
--          name of the latest), bandwidths ("rate,burst;rate,burst;...", as Limit.of takes)
-- ARGV[1]  the new bandwidths, or '' to read only
-- ARGV[2]  the change's name (when writing)
--
-- Writing bumps the version by one, atomically, so two changes at once get two versions
-- and the later one wins everywhere. The record never expires: it is the limit.
--
-- Reply: {version, change, bandwidths}; {0, '', ''} when the limit was never changed.

if ARGV[1] ~= nil and ARGV[1] ~= '' then
  local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
  redis.call('HSET', KEYS[1], 'change', ARGV[2], 'bandwidths', ARGV[1])
  return {version, ARGV[2], ARGV[1]}
end
local r = redis.call('HMGET', KEYS[1], 'version', 'change', 'bandwidths')
if not r[1] then
  return {0, '', ''}
end
return {tonumber(r[1]), r[2], r[3]}
