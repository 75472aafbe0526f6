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
--        {0, message}      this request failed in the store and changed nothing (a key of
--                          the wrong type, a value this script did not write); the
--                          requests before and after it are decided as usual
--
-- Order within a request: dedupe first (a duplicate or pending answer charges nothing),
-- then the hook bucket, then the byte bucket (a hook refused on bytes has spent its hook
-- charge, as on a single node), then the claim. A refusal claims nothing. Requests run
-- one after the other, so a later request sees every write of an earlier one, exactly as
-- if each had been its own call at the same instant. All numbers stay below 2^53, so
-- Lua's doubles hold them exactly.
--
-- Failure of one request. Each request runs under pcall, and reads everything it needs
-- (GET, PTTL: the commands that can fail on a key of the wrong type) before its first
-- write (SET, DEL: these overwrite any type). So a request that fails has written
-- nothing, and one bad request costs only its own answer ({0, message}), not the batch.
-- No extra command per key: a wrong type shows up as the GET's own error.

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

-- A bucket's tat, nil when the key is absent (a full bucket). A value this script did not
-- write (not an integer in [0, 2^53)) is an error, as is a key of another type (the GET
-- raises WRONGTYPE): both end this request only.
local function read_tat(key)
  local raw = redis.call('GET', key)
  if not raw then return nil end
  local tat = tonumber(raw)
  if tat == nil or not (tat >= 0 and tat < 9007199254740992 and tat == math.floor(tat)) then
    error('bucket ' .. key .. ' holds a value this script did not write: ' .. string.sub(raw, 1, 32), 0)
  end
  return tat
end

-- Writes a bucket's new tat (expiring when the bucket would be full again), or deletes the
-- key when the bucket is full again at once.
local function write_tat(key, next_tat, existed)
  if next_tat > now then
    redis.call('SET', key, string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000))
  elseif existed then
    redis.call('DEL', key)
  end
end

-- One request. a = index of its first argument, k = index of its first key. Every read
-- comes before the first write (see the header).
local function admit(a, k, pending_ttl)
  local flags = tonumber(ARGV[a + 4])
  local rate = flags % 2 == 1
  local claim = flags >= 2
  local dedupe_key = KEYS[k + 2]
  if claim then
    local held = redis.call('GET', dedupe_key)
    if held then
      local kind = string.sub(held, 1, 2)
      if kind == 'c:' then
        return {2, string.sub(held, 3)}
      end
      if kind ~= 'p:' then
        error('claim ' .. dedupe_key .. ' holds a value this script did not write: ' .. string.sub(held, 1, 32), 0)
      end
      local ttl = redis.call('PTTL', dedupe_key)
      if ttl < 1 then ttl = 1 end
      return {3, ttl}
    end
  end
  read_clock()
  local hook_tat, hook_next = nil, nil
  if rate then
    local hook_tol = tonumber(ARGV[a + 1])
    if hook_tol > 0 then
      local wait
      hook_tat = read_tat(KEYS[k])
      wait, hook_next = gcra(hook_tat, now, tonumber(ARGV[a]), hook_tol)
      if wait > 0 then return {4, 1, wait} end
    end
    local byte_tol = tonumber(ARGV[a + 3])
    if byte_tol > 0 then
      local byte_tat = read_tat(KEYS[k + 1])
      local wait, byte_next = gcra(byte_tat, now, tonumber(ARGV[a + 2]), byte_tol)
      if hook_next ~= nil then write_tat(KEYS[k], hook_next, hook_tat ~= nil) end
      if wait > 0 then return {4, 2, wait} end -- the hook charge stays spent
      write_tat(KEYS[k + 1], byte_next, byte_tat ~= nil)
    elseif hook_next ~= nil then
      write_tat(KEYS[k], hook_next, hook_tat ~= nil)
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
  local ok, reply = pcall(admit, a, k, pending_ttl)
  if not ok then
    -- redis.call raises a table {err = message} (a plain string before Redis 7); error() a string
    if type(reply) == 'table' then reply = reply.err end
    reply = {0, tostring(reply)}
  end
  replies[i] = reply
  a = a + 6
  if claims then k = k + 3 else k = k + 2 end
end
return replies
