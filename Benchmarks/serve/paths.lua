-- wrk script: cycles over the request paths in $PATHS (one per line; "PATH<TAB>ETAG" sends
-- If-None-Match), each wrk thread starting at its own offset so no two connections ask for the same
-- image at the same moment, and counts the statuses it gets back.
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
  statuses = {}
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
end

function done(summary, latency, requests)
  local totals = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do totals[status] = (totals[status] or 0) + n end
  end
  local parts = {}
  for status, n in pairs(totals) do table.insert(parts, status .. "=" .. n) end
  table.sort(parts)
  io.write(string.format("RESULT requests=%d seconds=%.3f p50_ms=%.2f p99_ms=%.2f statuses=%s errors=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
    table.concat(parts, ","), summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
