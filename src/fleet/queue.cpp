// The task queue over Redis streams (XADD, XREADGROUP, XAUTOCLAIM, XCLAIM JUSTID, XACK in MULTI/EXEC) with hiredis.
#include "fleet/fleet.h"

#include <hiredis/hiredis.h>

#include <charconv>

namespace vimgpt::fleet {
namespace {

constexpr const char* kGroup = "vimgpt";

struct ReplyFree {
  void operator()(redisReply* reply) const {
    if (reply != nullptr) freeReplyObject(reply);
  }
};
using Reply = std::unique_ptr<redisReply, ReplyFree>;

timeval to_timeval(milliseconds ms) {
  return timeval{static_cast<time_t>(ms.count() / 1000), static_cast<suseconds_t>((ms.count() % 1000) * 1000)};
}

std::string text_of(const redisReply* reply) {
  if (reply == nullptr) return {};
  if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS || reply->type == REDIS_REPLY_ERROR) {
    return {reply->str, reply->len};
  }
  if (reply->type == REDIS_REPLY_INTEGER) return std::to_string(reply->integer);
  return {};
}

std::int64_t integer_of(const redisReply* reply) {
  if (reply == nullptr) return 0;
  if (reply->type == REDIS_REPLY_INTEGER) return reply->integer;
  std::int64_t value = 0;
  const std::string text = text_of(reply);
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// A stream entry [id, [field, value, ...]] as a delivery (its count of deliveries filled in by the caller).
std::optional<Delivery> delivery_of(const redisReply* entry) {
  if (entry == nullptr || entry->type != REDIS_REPLY_ARRAY || entry->elements < 2) return std::nullopt;
  const redisReply* fields = entry->element[1];
  if (fields == nullptr || fields->type != REDIS_REPLY_ARRAY) return std::nullopt;  // deleted meanwhile
  Delivery delivery;
  delivery.entry = text_of(entry->element[0]);
  for (std::size_t i = 0; i + 1 < fields->elements; i += 2) {
    const std::string field = text_of(fields->element[i]);
    const std::string value = text_of(fields->element[i + 1]);
    if (field == "id") delivery.id = value;
    if (field == "task") delivery.task = Json::parse(value, nullptr, false);
    if (field == "attempts") delivery.delivery = static_cast<int>(integer_of(fields->element[i + 1]));
  }
  return delivery;
}

}  // namespace

Result<QueueUrl> parse_queue_url(std::string_view url) {
  const auto bad = [&](const std::string& why) {
    return fail(ErrorKind::InvalidArgument, "--queue takes redis://[:PASSWORD@]HOST[:PORT][/DB]/NAME (" + why +
                                                "), not '" + std::string(url) + "'");
  };
  if (url.starts_with("rediss://")) {
    return fail(ErrorKind::InvalidArgument,
                "rediss:// (TLS) is not supported: Debian 12's hiredis 0.14 has no TLS. Reach Redis over a "
                "private network or a TLS tunnel (stunnel, spiped) and give its redis:// address");
  }
  if (!url.starts_with("redis://")) return bad("the scheme is redis://");
  std::string_view rest = url.substr(8);
  QueueUrl parsed;
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view credentials = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (credentials.starts_with(':')) credentials.remove_prefix(1);
    parsed.password = std::string(credentials);
  }
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos) return bad("no queue NAME");
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = rest.substr(slash + 1);
  if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    const std::string_view port = authority.substr(colon + 1);
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), parsed.port);
    if (error != std::errc() || end != port.data() + port.size() || parsed.port < 1 || parsed.port > 65535) {
      return bad("bad port");
    }
    authority = authority.substr(0, colon);
  }
  parsed.host = std::string(authority);
  if (parsed.host.empty()) return bad("no host");
  if (const auto next = path.find('/'); next != std::string_view::npos) {
    const std::string_view db = path.substr(0, next);
    const auto [end, error] = std::from_chars(db.data(), db.data() + db.size(), parsed.database);
    if (error != std::errc() || end != db.data() + db.size() || parsed.database < 0) return bad("bad DB number");
    path = path.substr(next + 1);
  }
  if (path.empty() || path.find_first_of("/ ") != std::string_view::npos) return bad("no queue NAME");
  parsed.name = std::string(path);
  return parsed;
}

struct Queue::Connection {
  QueueUrl url;
  milliseconds timeout;
  redisContext* context = nullptr;

  ~Connection() {
    if (context != nullptr) redisFree(context);
  }

  [[nodiscard]] std::string where() const { return "Redis at " + url.host + ":" + std::to_string(url.port); }

  // (Re)connects when there is no usable connection: a worker outlives a Redis restart.
  Status ensure() {
    if (context != nullptr && context->err == 0) return ok();
    if (context != nullptr) redisFree(context);
    context = redisConnectWithTimeout(url.host.c_str(), url.port, to_timeval(timeout));
    if (context == nullptr || context->err != 0) {
      const std::string why = context == nullptr ? "out of memory" : context->errstr;
      return fail(ErrorKind::Network, "cannot reach " + where() + ": " + why);
    }
    redisSetTimeout(context, to_timeval(timeout));
    if (!url.password.empty()) VIMGPT_TRY_VOID(run({"AUTH", url.password}));
    if (url.database != 0) VIMGPT_TRY_VOID(run({"SELECT", std::to_string(url.database)}));
    return ok();
  }

  Result<Reply> run(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const auto& arg : args) {
      argv.push_back(arg.c_str());
      lengths.push_back(arg.size());
    }
    Reply reply(static_cast<redisReply*>(
        redisCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data())));
    if (!reply) return fail(ErrorKind::Network, where() + ": " + args.front() + " failed: " + context->errstr);
    if (reply->type == REDIS_REPLY_ERROR) {
      return fail(ErrorKind::Protocol, where() + " refused " + args.front() + ": " + text_of(reply.get()));
    }
    return reply;
  }

  // Connects if needed, then runs one command.
  Result<Reply> call(const std::vector<std::string>& args) {
    VIMGPT_TRY_VOID(ensure());
    return run(args);
  }

  // The commands as one MULTI/EXEC transaction: all of them happen, or none.
  Status transaction(const std::vector<std::vector<std::string>>& commands) {
    VIMGPT_TRY_VOID(ensure());
    VIMGPT_TRY_VOID(run({"MULTI"}));
    for (const auto& command : commands) VIMGPT_TRY_VOID(run(command));  // each answers QUEUED
    VIMGPT_TRY(Reply executed, run({"EXEC"}));
    if (executed->type != REDIS_REPLY_ARRAY)
      return fail(ErrorKind::Protocol, where() + ": the transaction was aborted");
    return ok();
  }
};

Queue::Queue(std::unique_ptr<Connection> connection, QueueUrl url)
    : connection_(std::move(connection)), url_(std::move(url)) {}
Queue::~Queue() = default;
Queue::Queue(Queue&&) noexcept = default;
Queue& Queue::operator=(Queue&&) noexcept = default;

Result<Queue> Queue::connect(const QueueUrl& url, milliseconds timeout) {
  auto connection = std::make_unique<Connection>();
  connection->url = url;
  connection->timeout = timeout;
  VIMGPT_TRY_VOID(connection->ensure());
  // The group reads the stream from its start, so tasks pushed before any worker came are delivered too.
  auto created = connection->run({"XGROUP", "CREATE", url.name + ":tasks", kGroup, "0", "MKSTREAM"});
  if (!created && created.error().message.find("BUSYGROUP") == std::string::npos) return created.failure();
  return Queue(std::move(connection), url);
}

Result<PushCounts> Queue::push(const std::vector<Json>& tasks) {
  // Marking the id and adding the entry in one script: a push cut short never leaves an id marked but not queued.
  static const std::string kPushOne =
      "if redis.call('HSETNX', KEYS[1], ARGV[1], '1') == 1 then "
      "redis.call('XADD', KEYS[2], '*', 'id', ARGV[1], 'task', ARGV[2], 'attempts', '0') return 1 end return 0";
  PushCounts counts;
  for (const auto& task : tasks) {
    const std::string id = task.value("id", "");
    VIMGPT_TRY(Reply added, connection_->call({"EVAL", kPushOne, "2", url_.name + ":ids", url_.name + ":tasks", id,
                                               task.dump(-1, ' ', false, Json::error_handler_t::replace)}));
    if (integer_of(added.get()) == 1) {
      ++counts.pushed;
    } else {
      ++counts.skipped;
    }
  }
  return counts;
}

Result<std::optional<Delivery>> Queue::take(const std::string& consumer, milliseconds claim_idle, milliseconds wait) {
  const std::string stream = url_.name + ":tasks";
  for (;;) {
    // A task whose worker went quiet: XAUTOCLAIM walks the pending entries from the cursor (a bounded number a
    // call), so walk until it comes back to the start.
    std::optional<Delivery> claimed;
    std::string cursor = "0-0";
    for (int page = 0; page < 100 && !claimed; ++page) {
      VIMGPT_TRY(Reply reply, connection_->call({"XAUTOCLAIM", stream, kGroup, consumer,
                                                 std::to_string(claim_idle.count()), cursor, "COUNT", "1"}));
      if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 2) break;
      cursor = text_of(reply->element[0]);
      const redisReply* entries = reply->element[1];
      if (entries->type == REDIS_REPLY_ARRAY && entries->elements > 0) claimed = delivery_of(entries->element[0]);
      if (cursor == "0-0") break;
    }
    std::optional<Delivery> next;
    if (claimed) {
      // Its count of deliveries so far (the claim included) comes from the pending entry.
      VIMGPT_TRY(Reply pending, connection_->call({"XPENDING", stream, kGroup, claimed->entry, claimed->entry, "1"}));
      const redisReply* row =
          pending->type == REDIS_REPLY_ARRAY && pending->elements > 0 ? pending->element[0] : nullptr;
      const std::int64_t count =
          row != nullptr && row->type == REDIS_REPLY_ARRAY && row->elements >= 4 ? integer_of(row->element[3]) : 1;
      claimed->delivery += static_cast<int>(count);
      next = std::move(claimed);
    } else {
      // A blocking read must not time the connection out: its timeout covers the wait, for this command only.
      VIMGPT_TRY_VOID(connection_->ensure());
      redisSetTimeout(connection_->context, to_timeval(connection_->timeout + wait));
      std::vector<std::string> command = {"XREADGROUP", "GROUP", kGroup, consumer, "COUNT", "1"};
      if (wait.count() > 0) command.insert(command.end(), {"BLOCK", std::to_string(wait.count())});  // 0: forever
      command.insert(command.end(), {"STREAMS", stream, ">"});
      auto read = connection_->run(command);
      if (connection_->context != nullptr) redisSetTimeout(connection_->context, to_timeval(connection_->timeout));
      if (!read) return read.failure();
      const redisReply* streams = read->get();
      if (streams->type != REDIS_REPLY_ARRAY || streams->elements == 0) return std::optional<Delivery>();
      const redisReply* entries = streams->element[0]->element[1];
      if (entries->type != REDIS_REPLY_ARRAY || entries->elements == 0) return std::optional<Delivery>();
      next = delivery_of(entries->element[0]);
      if (next) next->delivery += 1;
    }
    if (!next) continue;  // an entry deleted between the read and now
    if (next->delivery <= kMaxDeliveries) return next;
    const Json error = {{"id", next->id},
                        {"status", "error"},
                        {"message", "taken " + std::to_string(next->delivery - 1) +
                                        " times by workers that never finished it (they died or lost their browser): "
                                        "not run again"},
                        {"attempts", next->delivery - 1}};
    VIMGPT_TRY_VOID(finish(*next, error));
  }
}

Status Queue::heartbeat(const std::string& consumer, const Delivery& delivery) {
  // XCLAIM with a minimum idle time of 0 and JUSTID resets the entry's idle time without counting a delivery.
  VIMGPT_TRY_VOID(connection_->call({"XCLAIM", url_.name + ":tasks", kGroup, consumer, "0", delivery.entry, "JUSTID"}));
  return ok();
}

Status Queue::finish(const Delivery& delivery, const Json& result) {
  const std::string stream = url_.name + ":tasks";
  return connection_->transaction({
      {"HSETNX", url_.name + ":results", delivery.id, result.dump(-1, ' ', false, Json::error_handler_t::replace)},
      {"XACK", stream, kGroup, delivery.entry},
      {"XDEL", stream, delivery.entry},
  });
}

Status Queue::put_back(const Delivery& delivery) {
  const std::string stream = url_.name + ":tasks";
  return connection_->transaction({
      {"XACK", stream, kGroup, delivery.entry},
      {"XDEL", stream, delivery.entry},
      {"XADD", stream, "*", "id", delivery.id, "task",
       delivery.task.dump(-1, ' ', false, Json::error_handler_t::replace), "attempts",
       std::to_string(delivery.delivery)},
  });
}

Result<bool> Queue::drained() {
  VIMGPT_TRY(Reply pushed, connection_->call({"HLEN", url_.name + ":ids"}));
  VIMGPT_TRY(Reply finished, connection_->call({"HLEN", url_.name + ":results"}));
  return integer_of(finished.get()) >= integer_of(pushed.get());
}

Result<QueueStatus> Queue::status() {
  QueueStatus status;
  VIMGPT_TRY(Reply pushed, connection_->call({"HLEN", url_.name + ":ids"}));
  status.pushed = integer_of(pushed.get());
  VIMGPT_TRY(Reply length, connection_->call({"XLEN", url_.name + ":tasks"}));
  VIMGPT_TRY(Reply pending, connection_->call({"XPENDING", url_.name + ":tasks", kGroup}));
  status.running = pending->type == REDIS_REPLY_ARRAY && pending->elements > 0 ? integer_of(pending->element[0]) : 0;
  status.waiting = integer_of(length.get()) - status.running;
  VIMGPT_TRY(auto lines, results());
  for (const auto& [id, line] : lines) {
    if (line.is_object() && line.value("status", "") == "done") {
      ++status.done;
    } else {
      ++status.failed;
    }
  }
  return status;
}

Result<std::vector<std::pair<std::string, Json>>> Queue::results() {
  VIMGPT_TRY(Reply all, connection_->call({"HGETALL", url_.name + ":results"}));
  std::vector<std::pair<std::string, Json>> lines;
  for (std::size_t i = 0; i + 1 < all->elements; i += 2) {
    lines.emplace_back(text_of(all->element[i]), Json::parse(text_of(all->element[i + 1]), nullptr, false));
  }
  return lines;
}

}  // namespace vimgpt::fleet
