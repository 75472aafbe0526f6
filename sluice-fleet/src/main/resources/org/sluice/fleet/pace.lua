-- Sluice fleet pacing: one call leases up to N permits of one destination's bucket, so a
-- dispatcher pass asks once for all the attempts it would start, not once per attempt.
--
-- KEYS[1]  sluice:pace:{<destination>}   the destination's bucket (GCRA theoretical
--          arrival time, integer us; absent = a full bucket)
-- ARGV[1]  increment in us (one permit: 1 / rate)
-- ARGV[2]  tolerance in us (burst / rate)
-- ARGV[3]  N, the permits wanted (>= 1)
-- ARGV[4]  "now" in us, for tests only; '' = Redis TIME
--
-- Reply: {granted, wait}: granted in [0, N] permits are charged now; wait (us) is how long
-- until one more permit would be granted (0 when it would be granted now).
--
-- The bucket is the GCRA of admit.lua, charged k times at once: with debt = max(tat - now,
-- 0), permit j is granted while debt + j x inc <= tol, so k = floor((tol - debt) / inc),
-- capped at N, and the new tat is now + debt + k x inc. Granting k in one step grants
-- exactly what k calls of one permit each would at the same instant. An increment larger
-- than the tolerance (a burst below one permit after rounding) is granted only into a full
-- bucket, which it leaves exactly empty. Callers may change inc and tol from call to call (an
-- adaptive pace): the bucket is one arrival time, charged at each call's own inc. All numbers
-- stay below 2^53 (exact in Lua).

local key = KEYS[1]
local inc = tonumber(ARGV[1])
local tol = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])
local now
if ARGV[4] ~= nil and ARGV[4] ~= '' then
  now = tonumber(ARGV[4])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local raw = redis.call('GET', key)
local tat = nil
if raw then
  tat = tonumber(raw)
  if tat == nil or not (tat >= 0 and tat < 9007199254740992 and tat == math.floor(tat)) then
    return redis.error_reply('bucket ' .. key .. ' holds a value this script did not write: ' .. string.sub(raw, 1, 32))
  end
end
local debt = 0
if tat ~= nil and tat > now then debt = tat - now end

local granted = 0
local next_tat = now + debt
if inc > tol then
  if debt == 0 then
    granted = 1
    next_tat = now + tol
  end
else
  granted = math.floor((tol - debt) / inc)
  -- a quotient of doubles may round up: step back until the charge fits
  while granted > 0 and debt + granted * inc > tol do granted = granted - 1 end
  -- a debt beyond this call's tolerance (a caller whose rate changed: an adaptive pace that
  -- rose, its burst shrinking) grants nothing: not a negative grant, and the bucket stays as it is
  if granted < 0 then granted = 0 end
  if granted > wanted then granted = wanted end
  next_tat = now + debt + granted * inc
end

if granted > 0 then
  redis.call('SET', key, string.format('%.0f', next_tat), 'PX', math.max(1, math.ceil((next_tat - now) / 1000)))
end

local wait = 0
local left = next_tat - now
if inc > tol then
  wait = left
elseif left + inc > tol then
  wait = left + inc - tol
end
return {granted, wait}
