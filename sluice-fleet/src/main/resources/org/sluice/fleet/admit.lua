-- Sluice fleet admission: one call per hook, run atomically inside Redis.
--
-- KEYS[1]  sluice:{tenant}:h                 hook bucket   (GCRA theoretical arrival time, integer us)
-- KEYS[2]  sluice:{tenant}:b                 byte bucket   (same)
-- KEYS[3]  sluice:{tenant}:d:<source>:<key>  dedupe claim  (only when ARGV[6] == '1')
--          value "p:<claim token>" = pending (expires after ARGV[8] ms)
--          value "c:<hook id>"     = committed (expires with the dedupe window)
-- ARGV[1], ARGV[2]  hook charge: increment, tolerance (integer us; tolerance 0 = no hook limit)
-- ARGV[3], ARGV[4]  byte charge: increment, tolerance (integer us; tolerance 0 = no byte limit)
-- ARGV[5]  '1' = charge the buckets
-- ARGV[6]  '1' = claim the dedupe key
-- ARGV[7]  claim token
-- ARGV[8]  pending TTL in ms
-- ARGV[9]  optional: "now" in us, for the shared test vectors only; otherwise Redis TIME
--
-- Reply: {1}               admitted (the key, if asked, is now pending under our token)
--        {2, hook_id}      duplicate: the key is committed
--        {3, ttl_ms}       pending: another claim holds the key for ttl_ms more
--        {4, scope, wait}  rate limited; scope 1 = tenant (hooks), 2 = tenant_bytes; wait in us
--
-- Order: dedupe first (a duplicate or pending answer charges nothing), then the hook
-- bucket, then the byte bucket (a hook refused on bytes has spent its hook charge, as on
-- a single node), then the claim. A refusal claims nothing. All numbers stay below 2^53,
-- so Lua's doubles hold them exactly.

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

local claim = ARGV[6] == '1'
if claim then
  local held = redis.call('GET', KEYS[3])
  if held then
    if string.sub(held, 1, 2) == 'c:' then
      return {2, string.sub(held, 3)}
    end
    local ttl = redis.call('PTTL', KEYS[3])
    if ttl < 1 then ttl = 1 end
    return {3, ttl}
  end
end

local now
if ARGV[9] ~= nil and ARGV[9] ~= '' then
  now = tonumber(ARGV[9])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
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

if ARGV[5] == '1' then
  local hook_tol = tonumber(ARGV[2])
  if hook_tol > 0 then
    local wait = charge(KEYS[1], tonumber(ARGV[1]), hook_tol)
    if wait > 0 then return {4, 1, wait} end
  end
  local byte_tol = tonumber(ARGV[4])
  if byte_tol > 0 then
    local wait = charge(KEYS[2], tonumber(ARGV[3]), byte_tol)
    if wait > 0 then return {4, 2, wait} end
  end
end

if claim then
  redis.call('SET', KEYS[3], 'p:' .. ARGV[7], 'PX', tonumber(ARGV[8]))
end
return {1}
