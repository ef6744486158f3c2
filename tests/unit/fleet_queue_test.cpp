// The task queue against a real redis-server started on loopback: pushing once per id, taking, heartbeats that
// keep a task, claiming a silent worker's task, putting back, the delivery limit, and results written with
// their acknowledgement.
#include "fleet/fleet.h"

#include <gtest/gtest.h>

#include <set>

#include "support/redis_server.h"

namespace vimgpt::fleet {
namespace {

using namespace std::chrono_literals;

TEST(QueueUrl, ReadsHostPortDatabaseNameAndPassword) {
  auto plain = parse_queue_url("redis://127.0.0.1:6380/evals");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->host, "127.0.0.1");
  EXPECT_EQ(plain->port, 6380);
  EXPECT_EQ(plain->database, 0);
  EXPECT_EQ(plain->name, "evals");
  auto full = parse_queue_url("redis://:s3cret@cache.internal/2/nightly");
  ASSERT_TRUE(full) << full.error().message;
  EXPECT_EQ(full->host, "cache.internal");
  EXPECT_EQ(full->port, 6379);
  EXPECT_EQ(full->database, 2);
  EXPECT_EQ(full->password, "s3cret");
  EXPECT_EQ(full->name, "nightly");
}

TEST(QueueUrl, RefusesTlsAndMalformedUrlsSayingWhy) {
  auto tls = parse_queue_url("rediss://cache.internal:6380/evals");
  ASSERT_FALSE(tls);
  EXPECT_NE(tls.error().message.find("no TLS"), std::string::npos) << tls.error().message;
  for (const char* url : {"http://h/q", "redis://h:6379", "redis://h:0/q", "redis://h:99999/q", "redis:///q",
                          "redis://h/x/q", "redis://h/"}) {
    auto parsed = parse_queue_url(url);
    ASSERT_FALSE(parsed) << url;
    EXPECT_EQ(parsed.error().kind, ErrorKind::InvalidArgument) << url;
    EXPECT_NE(parsed.error().message.find("redis://"), std::string::npos) << parsed.error().message;
  }
}

class QueueOnRedis : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::RedisServer::installed()) GTEST_SKIP() << "no redis-server: scripts/setup.sh installs it";
    ASSERT_TRUE(redis_.ready());
  }
  Queue connect() {
    auto url = parse_queue_url(redis_.url("q"));
    EXPECT_TRUE(url);
    auto queue = Queue::connect(*url);
    EXPECT_TRUE(queue) << queue.error().message;
    return std::move(*queue);
  }
  static Json task(const std::string& id) { return {{"id", id}, {"objective", "task " + id}}; }

  test::RedisServer redis_;
};

TEST_F(QueueOnRedis, PushesEachIdOnceAndDrainsWhenEveryTaskHasAResult) {
  Queue queue = connect();
  auto first = queue.push({task("a"), task("b")});
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->pushed, 2);
  auto again = queue.push({task("b"), task("c")});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->pushed, 1);
  EXPECT_EQ(again->skipped, 1);

  std::set<std::string> taken;
  for (int i = 0; i < 3; ++i) {
    auto next = queue.take("w1", 60s, 100ms);
    ASSERT_TRUE(next && *next) << i;
    EXPECT_EQ((*next)->delivery, 1);
    EXPECT_EQ((*next)->task["objective"], "task " + (*next)->id);
    taken.insert((*next)->id);
    EXPECT_EQ(*queue.drained(), false);
    ASSERT_TRUE(queue.finish(**next, {{"id", (*next)->id}, {"status", i == 0 ? "error" : "done"}}));
  }
  EXPECT_EQ(taken, (std::set<std::string>{"a", "b", "c"}));
  auto none = queue.take("w1", 60s, 100ms);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  EXPECT_TRUE(*queue.drained());
  auto status = queue.status();
  ASSERT_TRUE(status);
  EXPECT_EQ(status->pushed, 3);
  EXPECT_EQ(status->waiting, 0);
  EXPECT_EQ(status->running, 0);
  EXPECT_EQ(status->done, 2);
  EXPECT_EQ(status->failed, 1);
  // A finished id pushed again is not run again.
  EXPECT_EQ(queue.push({task("a")})->skipped, 1);
}

TEST_F(QueueOnRedis, ASilentWorkersTaskIsClaimedAndAHeartbeatDoesNotCountAsADelivery) {
  Queue one = connect();
  Queue other = connect();
  ASSERT_TRUE(one.push({task("t")}));
  auto mine = one.take("w1", 60s, 100ms);
  ASSERT_TRUE(mine && *mine);
  ASSERT_TRUE(one.heartbeat("w1", **mine));
  // Just taken and just heard from: another worker that waits for a minute of silence does not take it.
  auto not_yet = other.take("w2", 60s, 100ms);
  ASSERT_TRUE(not_yet);
  EXPECT_FALSE(*not_yet);
  auto status = one.status();
  EXPECT_EQ(status->running, 1);
  EXPECT_EQ(status->waiting, 0);
  // With no silence asked for, it is taken over: the second delivery (the heartbeat was not one).
  auto claimed = other.take("w2", 0ms, 100ms);
  ASSERT_TRUE(claimed && *claimed) << (claimed ? "" : claimed.error().message);
  EXPECT_EQ((*claimed)->id, "t");
  EXPECT_EQ((*claimed)->delivery, 2);
  // Both finish (the first worker was only slow): the first result is kept.
  ASSERT_TRUE(other.finish(**claimed, {{"id", "t"}, {"status", "done"}, {"by", "w2"}}));
  ASSERT_TRUE(one.finish(**mine, {{"id", "t"}, {"status", "done"}, {"by", "w1"}}));
  auto results = one.results();
  ASSERT_TRUE(results);
  ASSERT_EQ(results->size(), 1U);
  EXPECT_EQ(results->front().second["by"], "w2");
  EXPECT_EQ(one.status()->running, 0);
}

TEST_F(QueueOnRedis, PutBackIsAtOnceAndTheFourthDeliveryIsRecordedAsAnError) {
  Queue queue = connect();
  ASSERT_TRUE(queue.push({task("t")}));
  auto first = queue.take("w1", 60s, 100ms);
  ASSERT_TRUE(first && *first);
  ASSERT_TRUE(queue.put_back(**first));  // its browser died
  auto second = queue.take("w2", 60s, 100ms);
  ASSERT_TRUE(second && *second);
  EXPECT_EQ((*second)->delivery, 2);
  EXPECT_EQ((*second)->task, (*first)->task);
  auto third = queue.take("w3", 0ms, 100ms);  // w2 died: claimed
  ASSERT_TRUE(third && *third);
  EXPECT_EQ((*third)->delivery, 3);
  auto fourth = queue.take("w4", 0ms, 100ms);  // w3 died too: not run a fourth time
  ASSERT_TRUE(fourth);
  EXPECT_FALSE(*fourth);
  EXPECT_TRUE(*queue.drained());
  auto results = queue.results();
  ASSERT_EQ(results->size(), 1U);
  EXPECT_EQ(results->front().second["status"], "error");
  EXPECT_NE(results->front().second["message"].get<std::string>().find("3 times"), std::string::npos);
}

TEST_F(QueueOnRedis, ADeadServerIsANetworkErrorNamingIt) {
  auto url = parse_queue_url("redis://127.0.0.1:1/q");
  auto queue = Queue::connect(*url, 2s);
  ASSERT_FALSE(queue);
  EXPECT_EQ(queue.error().kind, ErrorKind::Network);
  EXPECT_NE(queue.error().message.find("Redis at 127.0.0.1:1"), std::string::npos) << queue.error().message;
}

}  // namespace
}  // namespace vimgpt::fleet
