-- Sluice fleet settle: promote or release one dedupe claim. Sent in pipelined batches.
--
-- KEYS[1]  sluice:{tenant}:d:<source>:<key>
-- ARGV[1]  'c' = promote to committed, 'r' = release
-- ARGV[2]  our claim token
-- ARGV[3]  hook id                (promote only)
-- ARGV[4]  dedupe window seconds  (promote only)
--
-- Promote: the key becomes "c:<hook id>" for the dedupe window when it still holds our
-- pending claim, or holds nothing (our claim expired, or the store restarted: the hook is
-- durable either way, so recording it keeps later copies out). A key another claim holds
-- is left alone. Release: deleted only when it still holds our token.
-- Reply: 1 = done, 0 = left alone.
local held = redis.call('GET', KEYS[1])
local ours = held == ('p:' .. ARGV[2])
if ARGV[1] == 'c' then
  if held and not ours then return 0 end
  redis.call('SET', KEYS[1], 'c:' .. ARGV[3], 'EX', tonumber(ARGV[4]))
  return 1
end
if ours then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
