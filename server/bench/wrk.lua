-- wrk script of `just bench` (server/bench/run.sh): traffic as a reverse proxy in front of the
-- server would send it, so that the run stays within the limits a real client has.
--
-- Every request carries an X-Forwarded-For address (the bench's server is started with
-- KIZUNA_TRUSTED_PROXY_HEADER=X-Forwarded-For, its real setting, and wrk on 127.0.0.1 plays the
-- proxy): each wrk thread cycles through 1,024 addresses of its own, so no client address ever
-- has more than a few requests in flight, far below the per-address bound (128). Given a file of
-- session tokens (`wrk ... -s wrk.lua URL -- TOKENS`), requests take the members' sessions in
-- turn, so that one member is never the whole load. The same script runs for /healthz and for
-- my-info, so both pay the same client-side cost.
--
-- done() prints one line that run.sh reads:
--   bench-answers requests=N non2xx=N connect=N read=N write=N timeout=N
-- (non2xx: wrk's status errors, every answer with a status above 399; run.sh fails on any).

local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local requests = {}
local next_request = 0

function init(args)
  local tokens = {}
  if args[1] then
    for line in io.lines(args[1]) do
      if line ~= "" then table.insert(tokens, line) end
    end
    if #tokens == 0 then error("no session tokens in " .. args[1]) end
  end
  for i = 0, 1023 do
    local headers = {
      ["X-Forwarded-For"] = string.format("10.%d.%d.%d", id % 256, math.floor(i / 256), i % 256),
    }
    if #tokens > 0 then
      -- Offset by the thread so that the threads do not walk the members in lockstep.
      headers["Authorization"] = "Bearer " .. tokens[((i + id * 7) % #tokens) + 1]
    end
    requests[i + 1] = wrk.format(nil, nil, headers)
  end
end

function request()
  next_request = next_request % #requests + 1
  return requests[next_request]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("bench-answers requests=%d non2xx=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, e.status, e.connect, e.read, e.write, e.timeout))
end
