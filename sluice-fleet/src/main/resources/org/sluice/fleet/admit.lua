-- Sluice fleet admission: one call decides N hooks (N >= 1), in order, atomically inside
-- Redis. A standalone store gets a batch of concurrent admissions per call (group
-- commit); a cluster gets one admission per call (N = 1, one tenant's slot).
--
-- Header:
-- ARGV[1]  N, the number of requests
-- ARGV[2]  pending TTL in ms (the same for every request)
-- ARGV[3]  "now" in us, for the shared test vectors only; '' = Redis TIME (read once per call)
--
-- Request i (1-based), 6 arguments from ARGV[4 + 6(i-1)]:
--   hook increment, hook tolerance   (integer us; tolerance 0 = no hook limit)
--   byte increment, byte tolerance   (integer us; tolerance 0 = no byte limit)
--   flags: 1 = charge the buckets, 2 = claim the dedupe key, 3 = both
--   claim token ('' when no claim)
-- and its keys, in order: 2 keys, 3 when it claims:
--   sluice:{tenant}:h                 hook bucket   (GCRA theoretical arrival time, integer us)
--   sluice:{tenant}:b                 byte bucket   (same)
--   sluice:{tenant}:d:<source>:<key>  dedupe claim
--          value "p:<claim token>" = pending (expires after the pending TTL)
--          value "c:<hook id>"     = committed (expires with the dedupe window)
--
-- Reply: one entry per request, in request order:
--        {1}               admitted (the key, if asked, is now pending under its token)
--        {2, hook_id}      duplicate: the key is committed
--        {3, ttl_ms}       pending: another claim holds the key for ttl_ms more
--        {4, scope, wait}  rate limited; scope 1 = tenant (hooks), 2 = tenant_bytes; wait in us
--
-- Order within a request: dedupe first (a duplicate or pending answer charges nothing),
-- then the hook bucket, then the byte bucket (a hook refused on bytes has spent its hook
-- charge, as on a single node), then the claim. A refusal claims nothing. Requests run
-- one after the other, so a later request sees every write of an earlier one, exactly as
-- if each had been its own call at the same instant. All numbers stay below 2^53, so
-- Lua's doubles hold them exactly.

-- The GCRA step, identical to org.sluice.core.Gcra.waitNanos/admittedTat (in us here).
-- tat == nil is a full bucket. Returns wait (0 = admitted) and the new tat.
local function gcra(tat, now, inc, tol)
  local debt = 0
  if tat ~= nil and tat - now > 0 then debt = tat - now end
  if inc > tol then
    -- oversized: only into a full bucket, which it leaves exactly empty
    if debt > 0 then return debt, tat end
    return 0, now + tol
  end
  local over = debt + inc - tol
  if over > 0 then return over, tat end
  return 0, now + debt + inc
end

local now = nil
local function read_clock()
  if now == nil then
    if ARGV[3] ~= nil and ARGV[3] ~= '' then
      now = tonumber(ARGV[3])
    else
      local t = redis.call('TIME')
      now = tonumber(t[1]) * 1000000 + tonumber(t[2])
    end
  end
end

-- Charges one bucket; writes its new tat (expiring when the bucket would be full again).
-- Returns the wait in us, 0 when admitted.
local function charge(key, inc, tol)
  local raw = redis.call('GET', key)
  local tat = nil
  if raw then tat = tonumber(raw) end
  local wait, next_tat = gcra(tat, now, inc, tol)
  if wait > 0 then return wait end
  if next_tat > now then
    redis.call('SET', key, string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000))
  elseif raw then
    redis.call('DEL', key)
  end
  return 0
end

-- One request. a = index of its first argument, k = index of its first key.
local function admit(a, k, pending_ttl)
  local flags = tonumber(ARGV[a + 4])
  local rate = flags % 2 == 1
  local claim = flags >= 2
  local dedupe_key = KEYS[k + 2]
  if claim then
    local held = redis.call('GET', dedupe_key)
    if held then
      if string.sub(held, 1, 2) == 'c:' then
        return {2, string.sub(held, 3)}
      end
      local ttl = redis.call('PTTL', dedupe_key)
      if ttl < 1 then ttl = 1 end
      return {3, ttl}
    end
  end
  read_clock()
  if rate then
    local hook_tol = tonumber(ARGV[a + 1])
    if hook_tol > 0 then
      local wait = charge(KEYS[k], tonumber(ARGV[a]), hook_tol)
      if wait > 0 then return {4, 1, wait} end
    end
    local byte_tol = tonumber(ARGV[a + 3])
    if byte_tol > 0 then
      local wait = charge(KEYS[k + 1], tonumber(ARGV[a + 2]), byte_tol)
      if wait > 0 then return {4, 2, wait} end
    end
  end
  if claim then
    redis.call('SET', dedupe_key, 'p:' .. ARGV[a + 5], 'PX', pending_ttl)
  end
  return {1}
end

local n = tonumber(ARGV[1])
local pending_ttl = tonumber(ARGV[2])
local replies = {}
local a = 4
local k = 1
for i = 1, n do
  local claims = tonumber(ARGV[a + 4]) >= 2
  replies[i] = admit(a, k, pending_ttl)
  a = a + 6
  if claims then k = k + 3 else k = k + 2 end
end
return replies
