-- wrk script: cycles over the request paths in $PATHS (one per line; "PATH<TAB>ETAG" sends
-- If-None-Match), each wrk thread starting at its own offset so no two connections ask for the same
-- image at the same moment, and counts the statuses it gets back (and nginx's X-Cache-Status, when
-- there is one in front).
local threads, counter = {}, 0

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  paths, tags = {}, {}
  for line in io.lines(os.getenv("PATHS")) do
    local path, tag = line:match("^([^\t]+)\t?(.*)$")
    table.insert(paths, path)
    table.insert(tags, tag)
  end
  counter = id * math.floor(#paths / 2)
  statuses, caches = {}, {}
end

function request()
  counter = counter + 1
  local index = counter % #paths + 1
  local headers = {}
  if tags[index] ~= "" then headers["If-None-Match"] = tags[index] end
  return wrk.format("GET", paths[index], headers)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  local cache = headers["X-Cache-Status"]
  if cache then caches[cache] = (caches[cache] or 0) + 1 end
end

-- "200=12,503=3": the threads' counts of one table, summed.
local function summed(name, separator)
  local totals, parts = {}, {}
  for _, thread in ipairs(threads) do
    for key, n in pairs(thread:get(name)) do totals[key] = (totals[key] or 0) + n end
  end
  for key, n in pairs(totals) do table.insert(parts, key .. separator .. n) end
  table.sort(parts)
  return table.concat(parts, ",")
end

function done(summary, latency, requests)
  local caches = summed("caches", ":")
  io.write(string.format("RESULT requests=%d seconds=%.3f p50_ms=%.2f p99_ms=%.2f statuses=%s errors=%d%s\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
    summed("statuses", "="), summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    caches ~= "" and (" cache=" .. caches) or ""))
end
