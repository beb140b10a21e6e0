"""The Lua scripts of the Redis store, one per atomic operation (docs/store.md,
"Atomicity"). Every script has all its keys in KEYS, and on a cluster all of
them in one hash slot (the room's shard), so the same scripts run on one Redis
and on a Redis Cluster."""

from __future__ import annotations


def opt_int(value: int | None) -> str | int:
    """An optional integer argument of a script ('' for none)."""
    return "" if value is None else int(value)

# Shared Lua prelude: the Redis clock in ms, for the rooms index.
NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: room, deadlines, rooms.  ARGV: code, doc, ttl_ms, deadline ('' = none)
# The room hash keeps `x`, when its expiry (and the rooms index) was last pushed
# back, and `d`, its deadline as scheduled: SAVE pushes the expiry back only now
# and then, and schedules a deadline only when it changed. CLAIM, which moves a
# claimed room's score to its lease's end, drops `d`, so the next save schedules.
CREATE = (
    NOW
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', 1, 'doc', ARGV[2], 'x', now, 'd', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])
if ARGV[4] == '' then redis.call('ZREM', KEYS[2], ARGV[1])
else redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) end
return 1
"""
)

# KEYS: room, deadlines, rooms.
# ARGV: code, expected, doc, ttl_ms, deadline ('' = clear),
#       publish ('0', 'PUBLISH' or 'SPUBLISH'), channel, message
# Issue 38: the idle expiry and the rooms index are pushed back only once a tenth
# of the idle time (at most a minute) has passed since the last time (`x`): a room
# lives at least its idle time less that after its last change. The deadline is
# scheduled only when it is not `d` (a claim drops `d`: see CREATE).
REFRESH_DIVISOR = 10  # the expiry is pushed back every tenth of the idle time at most
REFRESH_MAX_MS = 60_000  # and at least once a minute
SAVE = (
    NOW
    + f"""
local cur = redis.call('HMGET', KEYS[1], 'v', 'x', 'd')
local v = cur[1]
if not v or tonumber(v) ~= tonumber(ARGV[2]) then return false end
local nv = tonumber(v) + 1
local ttl = tonumber(ARGV[4])
local refresh = now - tonumber(cur[2] or '0') >= math.min({REFRESH_MAX_MS}, ttl / {REFRESH_DIVISOR})
local set = {{'v', nv, 'doc', ARGV[3]}}
if refresh then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('ZADD', KEYS[3], now + ttl, ARGV[1])
  set[#set + 1] = 'x'; set[#set + 1] = now
end
if cur[3] ~= ARGV[5] then
  if ARGV[5] == '' then redis.call('ZREM', KEYS[2], ARGV[1])
  else redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1]) end
  set[#set + 1] = 'd'; set[#set + 1] = ARGV[5]
end
redis.call('HSET', KEYS[1], unpack(set))
if ARGV[6] ~= '0' then redis.call(ARGV[6], ARGV[7], ARGV[8]) end
return nv
"""
)

# KEYS: room.  ARGV: field, value.  The mark as it was (0 if unset), -1 without a room.
CLAIM_MARK = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > cur then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return cur
"""

# KEYS: room.  ARGV: field, value, field, value, ...  Each mark as it was (0 if unset),
# after raising each to its value if that is higher; -1 (alone) without a room.
CLAIM_MARKS = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local fields = {}
for i = 1, #ARGV, 2 do fields[#fields + 1] = ARGV[i] end
local cur = redis.call('HMGET', KEYS[1], unpack(fields))
local out, set = {}, {}
for i = 1, #fields do
  local was = tonumber(cur[i] or '0')
  out[i] = was
  local value = tonumber(ARGV[2 * i])
  if value > was then set[#set + 1] = fields[i]; set[#set + 1] = ARGV[2 * i] end
end
if #set > 0 then redis.call('HSET', KEYS[1], unpack(set)) end
return out
"""

# KEYS: room.  ARGV: field, claimed, previous.
RETURN_MARK = """
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and tonumber(cur) == tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
return 1
"""

# KEYS: room, deadlines, rooms.  ARGV: code
DELETE = """
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"""

# KEYS: a schedule (deadlines, members: codes; or leases, members: "code seat conn"),
# then the room key of each member.  ARGV: now_ms, lease_until_ms, members...
# A member still due is leased if its room lives, else dropped; one already claimed
# by someone else (no longer due) is left alone. Returns {claimed, the schedule's
# first entry afterwards (member, score; empty if none)}.
CLAIM = """
local out = {}
for i = 3, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) <= tonumber(ARGV[1]) then
    if redis.call('EXISTS', KEYS[i - 1]) == 1 then
      redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i])
      redis.call('HDEL', KEYS[i - 1], 'd')  -- its score moved: the next save schedules
      out[#out + 1] = ARGV[i]
    else
      redis.call('ZREM', KEYS[1], ARGV[i])
    end
  end
end
return {out, redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')}
"""

# KEYS: a schedule.  ARGV: now_ms ('-inf': none), limit.  Its due entries (at most
# limit), or if none is due its first entry: member, score, member, score, ...
HEADS = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES',
                       'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then return due end
return redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
"""

# KEYS: leases.  ARGV: until_ms, members...  Per member 1 (held: extended) or 0.
# Two commands for the whole batch (ZMSCORE, one ZADD; issue 27) where Redis >= 6.2
# has ZMSCORE, else a ZSCORE and a ZADD per member.
RENEW_LEASES = """
local out = {}
for first = 2, #ARGV, 500 do
  local last = math.min(first + 499, #ARGV)
  local scores = redis.pcall('ZMSCORE', KEYS[1], unpack(ARGV, first, last))
  local extend = {}
  for i = first, last do
    local held
    if type(scores) == 'table' and scores.err == nil then held = scores[i - first + 1]
    else held = redis.call('ZSCORE', KEYS[1], ARGV[i]) end
    if held then
      extend[#extend + 1] = ARGV[1]
      extend[#extend + 1] = ARGV[i]
      out[i - 1] = 1
    else
      out[i - 1] = 0
    end
  end
  if #extend > 0 then redis.call('ZADD', KEYS[1], unpack(extend)) end
end
return out
"""

# KEYS: rooms.
COUNT = (
    NOW
    + """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
"""
)


# KEYS: budget.  ARGV: interval_ms, capacity_ms, cost, force ('1'/'0'), max_debt_ms,
# [now_ms]. The same arithmetic as base.spend_at, on the Redis clock (shared by every
# process), or at now_ms when given (a store with an injected clock: tests; the key
# then lives an hour past its debt, as Redis expires it by its own clock, not the
# test's). The debt is reckoned from now, never as (tat + cost) - now, which rounds
# (issue 34). Returns the wait in ms as a string ('0': spent): Redis truncates Lua
# numbers.
SPEND = """
local now, keep
if ARGV[6] then
  now, keep = tonumber(ARGV[6]), 3600000
else
  local t = redis.call('TIME')
  now, keep = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000, 0
end
local ahead = tonumber(redis.call('GET', KEYS[1]) or '0') - now
if ahead < 0 then ahead = 0 end
local debt = ahead + tonumber(ARGV[3]) * tonumber(ARGV[1])
if debt < 0 then debt = 0 end
local capacity = tonumber(ARGV[2])
if debt > capacity and ARGV[4] ~= '1' then
  return tostring(debt - capacity)
end
local most = math.max(capacity, tonumber(ARGV[5]))
if debt > most then debt = most end
if debt < 1 then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%.3f', now + debt), 'PX', math.ceil(debt) + keep)
end
return '0'
"""
