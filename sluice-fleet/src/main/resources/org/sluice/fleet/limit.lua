-- Sluice fleet limiter: charges of keys against their bandwidths, atomically inside
-- Redis, for FleetLimiter (sluice-core's KeyedLimit at fleet scope). One call decides
-- N charges (N >= 1) one after the other: a standalone Redis gets a batch of concurrent
-- charges per call (group commit, as admit.lua); a cluster gets one charge per call (its
-- key's slot).
--
-- ARGV[1]  N, the number of charges
-- Charge j (1-based) takes 4 + 3n arguments from its first, a, and n + 1 keys from its
-- first, k (the arguments and keys of charge j + 1 follow those of charge j):
-- KEYS[k + i - 1], i = 1..n  the theoretical arrival time (integer us) of bandwidth i of one key
-- KEYS[k + n]        the limit the key's times are in: "version:interval:tolerance:..."
--                    (interval and tolerance of each bandwidth, integer us); all the keys
--                    of one charge share a hash tag, so they live in one Redis Cluster slot
-- ARGV[a]      "now" in us for tests on a manual clock; '' = Redis TIME (the fleet's one
--              clock, read once per call: a batch's charges happen at one instant)
-- ARGV[a + 1]  the caller's limit version (0 until the limit is first changed live)
-- ARGV[a + 2]  the change of that version: 0 RESET, 1 KEEP_REMAINING, 2 PROPORTIONAL
-- ARGV[a + 3]  n, the number of bandwidths
-- ARGV[a + 4 + 3(i-1)], ARGV[a + 5 + 3(i-1)], ARGV[a + 6 + 3(i-1)]  bandwidth i's
--          increment (the call's permits x interval), tolerance (burst x interval) and
--          interval, integer us; the increment is never above the tolerance (the client
--          checks the permits)
--
-- The limit version beside the state makes a live change fleet-wide: a key whose times
-- are in an older version's limit is converted to the caller's (as sluice-core's Bands
-- converts: matched by position, a new bandwidth starts full, kept room rounded down and
-- capped at the new burst, time owed beyond the old burst stays owed except under RESET)
-- in this same script, before the charge, so it happens once, atomically; a caller whose
-- version is older than the key's is told so ({-1, version}) and charges nothing: it
-- reads the fleet's limit and asks again, so nodes with the old limit converge.
--
-- Then the GCRA step of org.sluice.core.Gcra over every bandwidth: the call is admitted
-- only when every bandwidth admits it, and then every one is charged; a refusal spends
-- nothing (it writes only a conversion, which spends nothing). An absent key is a full
-- bucket; written keys expire when the bucket is full again, so idle keys cost no memory.
--
-- Reply: one entry per charge, in order: {wait, debt_1, ..., debt_n}: the wait in us
-- (0 = admitted) and each bandwidth's debt (tat - now, at least 0) after the charge; or
-- {-1, version} for a stale caller; or, when the store failed this charge alone (a key of
-- another type, a limit record this script did not write), the error's message as a
-- string: every read (GET) comes before the first write (SET, DEL: these overwrite any
-- type), so a charge that fails has written nothing and the others are decided as usual.
-- All numbers stay below 2^53, so Lua's doubles hold them.

local redis_now = nil

-- One charge: a = index of its first argument, k = index of its first key.
local function charge(a, k)
  local now
  if ARGV[a] ~= '' then
    now = tonumber(ARGV[a])
  else
    if redis_now == nil then
      local t = redis.call('TIME')
      redis_now = tonumber(t[1]) * 1000000 + tonumber(t[2])
    end
    now = redis_now
  end

  local n = tonumber(ARGV[a + 3])
  local version = tonumber(ARGV[a + 1])
  local change = tonumber(ARGV[a + 2])
  local metaKey = KEYS[k + n]

  -- the limit the stored times are in
  local storedVersion = version
  local old = nil
  local meta = redis.call('GET', metaKey)
  if meta then
    local fields = {}
    for f in string.gmatch(meta, '[^:]+') do fields[#fields + 1] = tonumber(f) end
    storedVersion = fields[1]
    if storedVersion > version then
      return {-1, storedVersion}
    end
    if storedVersion < version then
      old = {}
      for i = 1, (#fields - 1) / 2 do
        old[i] = {fields[2 * i], fields[2 * i + 1]} -- interval, tolerance
      end
    end
  end

  local tats = {}
  local wait = 0
  for i = 1, n do
    local inc = tonumber(ARGV[a + 4 + 3 * (i - 1)])
    local tol = tonumber(ARGV[a + 5 + 3 * (i - 1)])
    local interval = tonumber(ARGV[a + 6 + 3 * (i - 1)])
    local tat = tonumber(redis.call('GET', KEYS[k + i - 1]))
    if tat == nil or tat < now then tat = now end
    if old ~= nil then
      if i > #old or change == 0 then
        tat = now
      else
        local debt = tat - now
        local oldRoom = math.max(0, old[i][2] - debt)
        local owed = math.max(0, debt - old[i][2])
        local scale
        if change == 1 then scale = interval / old[i][1] else scale = tol / old[i][2] end
        local room = math.min(tol, math.floor(oldRoom * scale))
        tat = now + (tol - room) + owed
      end
    end
    tats[i] = tat
    local over = (tat - now) + inc - tol
    if over > wait then wait = over end
  end

  local reply = {wait}
  local longest = 0
  local record = tostring(version)
  for i = 1, n do
    local tat = tats[i]
    if wait == 0 then
      tat = tat + tonumber(ARGV[a + 4 + 3 * (i - 1)])
    end
    if wait == 0 or old ~= nil then
      if tat > now then
        redis.call('SET', KEYS[k + i - 1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000))
      else
        redis.call('DEL', KEYS[k + i - 1])
      end
    end
    if tat - now > longest then longest = tat - now end
    record = record .. ':' .. ARGV[a + 6 + 3 * (i - 1)] .. ':' .. ARGV[a + 5 + 3 * (i - 1)]
    reply[i + 1] = tat - now
  end
  if (wait == 0 or old ~= nil) then
    if longest > 0 then
      redis.call('SET', metaKey, record, 'PX', math.ceil(longest / 1000))
    else
      redis.call('DEL', metaKey)
    end
  end
  return reply
end

local count = tonumber(ARGV[1])
local replies = {}
local a = 2
local k = 1
for j = 1, count do
  local n = tonumber(ARGV[a + 3])
  local ok, reply = pcall(charge, a, k)
  if not ok then
    -- redis.call raises a table {err = message} (a plain string before Redis 7)
    if type(reply) == 'table' then reply = reply.err end
    reply = tostring(reply)
  end
  replies[j] = reply
  a = a + 4 + 3 * n
  k = k + n + 1
end
return replies
