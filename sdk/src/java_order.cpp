#include "assignor/java_order.hpp"

#include <utf8.h>

#include <algorithm>
#include <charconv>
#include <string>

namespace assignor {

namespace {

std::uint32_t spread(std::int32_t h) noexcept {
  const auto u = static_cast<std::uint32_t>(h);
  return u ^ (u >> 16);
}

// HashMap.tableSizeFor: the smallest power of two >= c (1 for c <= 1), at most 2^30.
std::size_t table_size_for(std::size_t c) noexcept {
  std::size_t n = 1;
  while (n < c && n < (std::size_t{1} << 30)) n <<= 1;
  return n;
}

constexpr std::size_t kTreeifyAfterPut = 8;      // putVal: a bin that had 8 entries gets a 9th
constexpr std::size_t kTreeifyAfterCompute = 7;  // computeIfAbsent: a bin that had 7 gets an 8th
constexpr std::size_t kMinTreeifyCapacity = 64;

}  // namespace

std::int32_t java_string_hash(std::string_view utf8) noexcept {
  std::uint32_t h = 0;
  auto unit = [&](std::uint32_t u) { h = 31 * h + u; };
  // Java decodes each byte that does not start a valid UTF-8 sequence as U+FFFD (one unit each).
  auto it = utf8.begin();
  while (it != utf8.end()) {
    std::uint32_t cp = 0xFFFD;
    const auto start = it;
    try {
      cp = utf8::next(it, utf8.end());
    } catch (const utf8::exception&) {
      it = start + 1;
    }
    if (cp >= 0x10000) {  // a surrogate pair in UTF-16
      unit(0xD800 + ((cp - 0x10000) >> 10));
      unit(0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
      unit(cp);
    }
  }
  return static_cast<std::int32_t>(h);
}

std::int32_t java_uuid_hash(const JavaUuid& uuid) noexcept {
  const auto hilo = static_cast<std::uint64_t>(uuid.most) ^ static_cast<std::uint64_t>(uuid.least);
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(hilo >> 32) ^ static_cast<std::uint32_t>(hilo));
}

std::int32_t kafka_streams_task_id_hash(std::int32_t subtopology, std::int32_t partition) noexcept {
  // Objects.hash(a, b, c) = 31 * (31 * (31 * 1 + a) + b) + c, c = 0 for the null named topology.
  std::uint32_t h = 1;
  h = 31 * h + static_cast<std::uint32_t>(subtopology);
  h = 31 * h + static_cast<std::uint32_t>(partition);
  h = 31 * h;
  return static_cast<std::int32_t>(h);
}

std::int32_t kafka_kip1071_task_id_hash(std::int32_t subtopology, std::int32_t partition) noexcept {
  // A record's hashCode: 31 * subtopologyId.hashCode() + partition.
  const std::string text = std::to_string(subtopology);
  const auto h = static_cast<std::uint32_t>(java_string_hash(text));
  return static_cast<std::int32_t>(31 * h + static_cast<std::uint32_t>(partition));
}

int compare_subtopology_ids_as_strings(std::int32_t a, std::int32_t b) noexcept {
  char x[16], y[16];
  const auto ex = std::to_chars(x, x + sizeof x, a).ptr;
  const auto ey = std::to_chars(y, y + sizeof y, b).ptr;
  const int c = std::string_view(x, static_cast<std::size_t>(ex - x))
                    .compare(std::string_view(y, static_cast<std::size_t>(ey - y)));
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

JavaHashOrder JavaHashOrder::with_capacity(std::size_t initial_capacity) {
  JavaHashOrder m;
  m.initial_bins_ = table_size_for(initial_capacity);
  return m;
}

JavaHashOrder JavaHashOrder::copy_of(std::size_t size) {
  // Math.max((int) (size / .75f) + 1, 16), in float as Java computes it.
  const auto wanted = static_cast<std::size_t>(static_cast<float>(size) / 0.75f) + 1;
  return with_capacity(std::max<std::size_t>(wanted, 16));
}

JavaHashOrder::Entry* JavaHashOrder::find(std::uint32_t key) noexcept {
  return key < slot_of_key_.size() && slot_of_key_[key] != 0 ? &entries_[slot_of_key_[key] - 1] : nullptr;
}

const JavaHashOrder::Entry* JavaHashOrder::find(std::uint32_t key) const noexcept {
  return key < slot_of_key_.size() && slot_of_key_[key] != 0 ? &entries_[slot_of_key_[key] - 1] : nullptr;
}

bool JavaHashOrder::contains(std::uint32_t key) const noexcept { return find(key) != nullptr; }

void JavaHashOrder::resize() {
  bins_ = bins_ == 0 ? initial_bins_ : std::min<std::size_t>(bins_ * 2, std::size_t{1} << 30);
  threshold_ = bins_ * 3 / 4;  // (int) (bins * 0.75f): 1 -> 0, 2 -> 1, 4 -> 3, ...
  bin_count_.assign(bins_, 0);
  for (const Entry& e : entries_)
    if (e.live) ++bin_count_[e.spread & (bins_ - 1)];
}

void JavaHashOrder::grew_bin(std::size_t bin_size_before, std::size_t limit) {
  if (bin_size_before < limit) return;
  if (bins_ < kMinTreeifyCapacity)
    resize();
  else
    treeified_ = true;
}

void JavaHashOrder::put(std::uint32_t key, std::int32_t hash) {
  if (bins_ == 0) resize();
  if (find(key) != nullptr) return;
  const std::uint32_t s = spread(hash);
  const std::size_t bin = s & (bins_ - 1);
  const std::size_t before = bin_count_[bin];
  if (key >= slot_of_key_.size()) slot_of_key_.resize(static_cast<std::size_t>(key) + 1, 0);
  entries_.push_back({key, s, ++last_, true});
  slot_of_key_[key] = static_cast<std::uint32_t>(entries_.size());
  ++bin_count_[bin];
  grew_bin(before, kTreeifyAfterPut);
  if (++size_ > threshold_) resize();
}

void JavaHashOrder::compute_if_absent(std::uint32_t key, std::int32_t hash) {
  if (bins_ == 0 || size_ > threshold_) resize();
  if (find(key) != nullptr) return;
  const std::uint32_t s = spread(hash);
  const std::size_t bin = s & (bins_ - 1);
  const std::size_t before = bin_count_[bin];
  if (key >= slot_of_key_.size()) slot_of_key_.resize(static_cast<std::size_t>(key) + 1, 0);
  entries_.push_back({key, s, --first_, true});
  slot_of_key_[key] = static_cast<std::uint32_t>(entries_.size());
  ++bin_count_[bin];
  grew_bin(before, kTreeifyAfterCompute);
  ++size_;
}

void JavaHashOrder::remove(std::uint32_t key) {
  Entry* e = find(key);
  if (e == nullptr) return;
  e->live = false;
  --bin_count_[e->spread & (bins_ - 1)];
  slot_of_key_[key] = 0;
  --size_;
}

std::vector<std::uint32_t> JavaHashOrder::order() const {
  std::vector<const Entry*> live;
  live.reserve(size_);
  for (const Entry& e : entries_)
    if (e.live) live.push_back(&e);
  const std::size_t mask = bins_ == 0 ? 0 : bins_ - 1;
  auto by_sequence = [](const Entry* a, const Entry* b) { return a->sequence < b->sequence; };
  if (bins_ != 0 && bins_ <= 4 * live.size() + 64) {
    // By bin (counting sort), then each bin's few entries by position in it.
    std::vector<std::uint32_t> at(bins_ + 1, 0);
    for (const Entry* e : live) ++at[(e->spread & mask) + 1];
    for (std::size_t b = 0; b < bins_; ++b) at[b + 1] += at[b];
    std::vector<const Entry*> sorted(live.size());
    for (const Entry* e : live) sorted[at[e->spread & mask]++] = e;
    std::size_t first = 0;
    for (std::size_t b = 0; b < bins_; ++b) {
      const std::size_t last = at[b];
      if (last - first > 1)
        std::sort(sorted.begin() + static_cast<std::ptrdiff_t>(first),
                  sorted.begin() + static_cast<std::ptrdiff_t>(last), by_sequence);
      first = last;
    }
    live.swap(sorted);
  } else {
    std::sort(live.begin(), live.end(), [mask](const Entry* a, const Entry* b) {
      const std::size_t ba = a->spread & mask, bb = b->spread & mask;
      return ba != bb ? ba < bb : a->sequence < b->sequence;
    });
  }
  std::vector<std::uint32_t> out;
  out.reserve(live.size());
  for (const Entry* e : live) out.push_back(e->key);
  return out;
}

}  // namespace assignor
