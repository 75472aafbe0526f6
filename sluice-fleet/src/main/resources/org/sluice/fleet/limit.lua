-- Sluice fleet limiter: one charge of a key against its bandwidths, atomically inside
-- Redis, for FleetLimiter (sluice-core's KeyedLimit at fleet scope).
--
-- KEYS[i]  the theoretical arrival time (integer us) of bandwidth i of one key; all the
--          keys of one call share a hash tag, so they live in one Redis Cluster slot
-- ARGV[1]  "now" in us for tests on a manual clock; '' = Redis TIME (the fleet's one clock)
-- ARGV[2i], ARGV[2i+1]  bandwidth i's increment (the call's permits x interval) and
--          tolerance (burst x interval), integer us; the increment is never above the
--          tolerance (the client checks the permits against the smallest burst)
--
-- The GCRA step of org.sluice.core.Gcra over every bandwidth: the call is admitted only
-- when every bandwidth admits it, and then every one is charged; a refusal writes
-- nothing. An absent key is a full bucket; a written key expires when its bucket is full
-- again, so idle keys cost no memory.
--
-- Reply: {wait, debt_1, ..., debt_n}: the wait in us (0 = admitted) and each bandwidth's
-- debt (tat - now, at least 0) after the call, from which the client answers remaining
-- permits and the reset time. All numbers stay below 2^53, so Lua's doubles hold them.

local now
if ARGV[1] ~= nil and ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local n = #KEYS
local tats = {}
local wait = 0
for i = 1, n do
  local tat = tonumber(redis.call('GET', KEYS[i]))
  if tat == nil or tat < now then tat = now end
  tats[i] = tat
  local over = (tat - now) + tonumber(ARGV[2 * i]) - tonumber(ARGV[2 * i + 1])
  if over > wait then wait = over end
end

local reply = {wait}
for i = 1, n do
  local tat = tats[i]
  if wait == 0 then
    tat = tat + tonumber(ARGV[2 * i])
    redis.call('SET', KEYS[i], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000))
  end
  reply[i + 1] = tat - now
end
return reply
