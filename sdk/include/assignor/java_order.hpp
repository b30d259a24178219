// Java iteration order: the hash codes, java.util.HashMap / HashSet iteration orders and
// java.util.PriorityQueue poll orders that Kafka's assignors meet, for strategies that carry a Kafka
// name and must break ties where Kafka breaks them (DESIGN 2, "Identity in Kafka's terms").
//
// Where Kafka iterates a HashMap, the order is the table's bin order, and inside a bin the order in
// which the entries arrived: put() appends, computeIfAbsent() prepends. Which bin a key lands in
// depends on the table's size, which depends on how the map was made and on every insertion since
// (Java's resize rules). JavaHashOrder replays exactly that from the keys' Java hash codes, once, on
// small integers chosen by the caller (task or client indices): no strings or maps in the hot loop.
//
//   JavaHashOrder members;                                  // new HashMap<>()
//   for (std::uint32_t m = 0; m < ids.size(); ++m) members.put(m, java_string_hash(ids[m]));
//   for (std::uint32_t m : members.order()) ...             // for (String id : map.keySet())
//
//   auto by_load = [&](ClientIndex a, ClientIndex b) { return java_compare(load[a], load[b]); };
//   JavaPriorityQueue<ClientIndex, decltype(by_load)> queue(by_load);
//   queue.offer(c); ... const ClientIndex least = queue.poll();  // ties fall where Java's heap puts them
//
// Tested against orders recorded once from a JVM (tests/sdk/data/java_order/).
//
// Not reproduced: a bin that Java turns into a tree (9 or more colliding keys in a table of 64 bins or
// more) iterates in an order of its own; JavaHashOrder::treeified() says when that happened, so that a
// caller can say its answer may differ from Java's. Kafka's keys (task ids, process ids, member ids)
// collide that much only in tables that do not hold them in a tree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "assignor/kafka_identity.hpp"

namespace assignor {

// String.hashCode() of the text (UTF-8 here, UTF-16 code units in Java; invalid UTF-8 bytes count as
// U+FFFD, as Java's decoder would make them).
std::int32_t java_string_hash(std::string_view utf8) noexcept;

// UUID.hashCode().
std::int32_t java_uuid_hash(const JavaUuid& uuid) noexcept;

// hashCode() of Kafka Streams' org.apache.kafka.streams.processor.TaskId (no named topology):
// Objects.hash(subtopology, partition, null).
std::int32_t kafka_streams_task_id_hash(std::int32_t subtopology, std::int32_t partition) noexcept;

// hashCode() of the KIP-1071 group coordinator's TaskId, a record (String subtopologyId, int
// partition) whose subtopology id is the decimal text of the sub-topology.
std::int32_t kafka_kip1071_task_id_hash(std::int32_t subtopology, std::int32_t partition) noexcept;

// The KIP-1071 coordinator's sub-topology ids are strings: "10" sorts before "2". <0, 0, >0.
int compare_subtopology_ids_as_strings(std::int32_t a, std::int32_t b) noexcept;

// Double.compare for the loads Kafka computes as doubles (no NaNs here): <0, 0, >0.
inline int java_compare(double a, double b) noexcept { return a < b ? -1 : (a > b ? 1 : 0); }

// The iteration order of one java.util.HashMap (or HashSet, which is a HashMap) built by a known
// sequence of calls. Keys are the caller's small integers, each with its Java hash code.
class JavaHashOrder {
 public:
  // new HashMap<>() / new HashSet<>().
  JavaHashOrder() = default;
  // new HashMap<>(initialCapacity) / new HashSet<>(initialCapacity).
  static JavaHashOrder with_capacity(std::size_t initial_capacity);
  // new HashSet<>(collection) / new HashMap<>(map) before its elements are added: presized to
  // max(size / 0.75 + 1, 16) bins; add the elements with put() in the collection's order.
  static JavaHashOrder copy_of(std::size_t size);

  // put(key, ...) / add(key): a new key goes to the end of its bin; resizes after inserting.
  // A key already present is left where it is.
  void put(std::uint32_t key, std::int32_t hash);
  // computeIfAbsent(key, ...) (also compute, merge): a new key goes to the front of its bin;
  // resizes before inserting when the map is over its threshold.
  void compute_if_absent(std::uint32_t key, std::int32_t hash);
  // remove(key); absent keys are ignored. A table never shrinks.
  void remove(std::uint32_t key);

  bool contains(std::uint32_t key) const noexcept;
  std::size_t size() const noexcept { return size_; }
  std::size_t bins() const noexcept { return bins_; }
  bool treeified() const noexcept { return treeified_; }

  // The keys in iteration order. O(n + bins) (O(n log n) when the table is much larger than n).
  std::vector<std::uint32_t> order() const;

 private:
  struct Entry {
    std::uint32_t key;
    std::uint32_t spread;   // h ^ (h >>> 16)
    std::int64_t sequence;  // position inside its bin: appends count up, prepends count down
    bool live;
  };
  void resize();
  // Java's treeifyBin(), called when a bin had `bin_size_before` entries and one more came:
  // a resize below 64 bins, a tree from 64 on.
  void grew_bin(std::size_t bin_size_before, std::size_t limit);
  Entry* find(std::uint32_t key) noexcept;
  const Entry* find(std::uint32_t key) const noexcept;

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slot_of_key_;  // key -> index in entries_ + 1 (0: absent)
  std::vector<std::uint32_t> bin_count_;    // live entries per bin of the current table
  std::size_t initial_bins_ = 16;           // the first table's size (Java allocates it lazily)
  std::size_t bins_ = 0;                    // 0 until the first insertion
  std::size_t threshold_ = 0;               // resize when the size exceeds it
  std::size_t size_ = 0;
  std::int64_t first_ = 0, last_ = 0;
  bool treeified_ = false;
};

// java.util.PriorityQueue with a comparator: the same binary heap, so the same element comes out of
// poll() when several compare equal. `compare(a, b)` returns <0, 0, >0 like Java's Comparator (it may
// read live state, as Kafka's comparators do: an element must not change while it is in the queue).
template <class T, class Compare>
class JavaPriorityQueue {
 public:
  explicit JavaPriorityQueue(Compare compare) : compare_(std::move(compare)) {}

  bool empty() const noexcept { return heap_.empty(); }
  std::size_t size() const noexcept { return heap_.size(); }
  const T& peek() const { return heap_.front(); }
  void reserve(std::size_t n) { heap_.reserve(n); }
  void clear() noexcept { heap_.clear(); }

  // offer(x) / add(x).
  void offer(T x) {
    heap_.push_back(x);
    sift_up(heap_.size() - 1, std::move(x));
  }
  // poll(); the queue must not be empty.
  T poll() {
    T result = std::move(heap_.front());
    T last = std::move(heap_.back());
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, std::move(last));
    return result;
  }
  // remove(Object): the first element (in heap array order) equal to x; false when there is none.
  bool remove(const T& x) {
    for (std::size_t i = 0; i < heap_.size(); ++i)
      if (heap_[i] == x) {
        remove_at(i);
        return true;
      }
    return false;
  }
  // The heap array, in the order Java's iterator() walks it.
  const std::vector<T>& elements() const noexcept { return heap_; }

 private:
  void sift_up(std::size_t k, T x) {
    while (k > 0) {
      const std::size_t parent = (k - 1) >> 1;
      if (compare_(x, heap_[parent]) >= 0) break;
      heap_[k] = std::move(heap_[parent]);
      k = parent;
    }
    heap_[k] = std::move(x);
  }
  void sift_down(std::size_t k, T x) {
    const std::size_t n = heap_.size();
    const std::size_t half = n >> 1;
    while (k < half) {
      std::size_t child = 2 * k + 1;
      const std::size_t right = child + 1;
      if (right < n && compare_(heap_[child], heap_[right]) > 0) child = right;
      if (compare_(x, heap_[child]) <= 0) break;
      heap_[k] = std::move(heap_[child]);
      k = child;
    }
    heap_[k] = std::move(x);
  }
  // Java's removeAt(i): the last element sifts down from i, and up when it stayed there.
  void remove_at(std::size_t i) {
    const std::size_t last = heap_.size() - 1;
    if (last == i) {
      heap_.pop_back();
      return;
    }
    T moved = std::move(heap_[last]);
    heap_.pop_back();
    const T copy = moved;
    sift_down(i, std::move(moved));
    if (heap_[i] == copy) sift_up(i, copy);
  }

  Compare compare_;
  std::vector<T> heap_;
};

}  // namespace assignor
