// Declarative JSON for the output records (an assignment's metrics, simulate's rounds and summary,
// compare's rows): a record lists its fields once, each a key and a member in the order the contract
// writes them (DESIGN 4.4 to 4.6), and its to_json / from_json are record_json::write / read over
// that list, so writers say `ordered_json j = record;` and readers `record = j.get<Record>()`.
//
// nlohmann's NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT is this list, but the 3.11.2 Debian
// ships defines it for nlohmann::json only (whose objects sort their keys, while the contracts pin
// the order: the outputs are ordered_json) and knows no std::optional; this header adds those two
// and a field whose JSON is not one member as it is (several members, or another unit).
//
//   const auto kTimingFields = std::make_tuple(record_json::field("median", &Timing::median), ...);
//   void to_json(nlohmann::ordered_json& j, const Timing& t) { record_json::write(j, t, kTimingFields); }
//   void from_json(const nlohmann::json& j, Timing& t) { record_json::read(j, t, kTimingFields); }
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

namespace assignor::host::record_json {

// A field: its key, how its value comes from the record (a member pointer, or a function of the
// record) and how it goes back (a member pointer, a function (Record&, const json&), or WriteOnly).
template <typename Get, typename Set>
struct Field {
  const char* key;
  Get get;
  Set set;
};

struct WriteOnly {};

// A member as it is, both ways.
template <typename Record, typename Member>
constexpr auto field(const char* key, Member Record::*member) {
  return Field<Member Record::*, Member Record::*>{key, member, member};
}

// A value made from the record, read back by `set` (a function (Record&, const json&)).
template <typename Get, typename Set>
constexpr auto adapted(const char* key, Get get, Set set) {
  return Field<Get, Set>{key, get, set};
}

// A value made from the record for people (rounded, joined): written, never read back.
template <typename Get>
constexpr auto computed(const char* key, Get get) {
  return Field<Get, WriteOnly>{key, get, {}};
}

// A value whose key is written only when it holds one (std::optional writes null instead).
template <typename T>
struct OmittedWhenEmpty {
  std::optional<T> value;
};

namespace detail {

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

template <typename T>
struct is_omitted_when_empty : std::false_type {};
template <typename T>
struct is_omitted_when_empty<OmittedWhenEmpty<T>> : std::true_type {};

template <typename Json, typename Value>
void put(Json& j, const char* key, const Value& value) {
  if constexpr (is_optional<Value>::value) {
    j[key] = value ? Json(*value) : Json(nullptr);
  } else if constexpr (is_omitted_when_empty<Value>::value) {
    if (value.value) j[key] = *value.value;
  } else {
    j[key] = value;
  }
}

// A member from its JSON value: null is an empty optional; any other type mismatch is nlohmann's
// type_error (these records are read from what this program wrote, or checked before).
template <typename Json, typename Member>
void take(const Json& value, Member& member) {
  if constexpr (is_optional<Member>::value) {
    if (value.is_null())
      member.reset();
    else
      member = value.template get<typename Member::value_type>();
  } else {
    value.get_to(member);
  }
}

template <typename Json, typename Record, typename Get, typename Set>
void read_field(const Json& j, Record& record, const Field<Get, Set>& f) {
  if constexpr (!std::is_same_v<Set, WriteOnly>) {
    const auto it = j.find(f.key);
    if (it == j.end()) return;  // missing: the record's default, as _WITH_DEFAULT does
    if constexpr (std::is_member_object_pointer_v<Set>)
      take(*it, record.*(f.set));
    else
      f.set(record, *it);
  }
}

}  // namespace detail

// The record as a JSON object, its fields in the list's order.
template <typename Json, typename Record, typename... Fields>
void write(Json& j, const Record& record, const std::tuple<Fields...>& fields) {
  j = Json::object();
  std::apply([&](const auto&... f) { (detail::put(j, f.key, std::invoke(f.get, record)), ...); }, fields);
}

// The record's fields back from a JSON object; a missing key keeps the field's default.
// Throws std::invalid_argument when `j` is not an object.
template <typename Json, typename Record, typename... Fields>
void read(const Json& j, Record& record, const std::tuple<Fields...>& fields) {
  if (!j.is_object()) throw std::invalid_argument(std::string("a record's JSON is an object, not ") + j.type_name());
  std::apply([&](const auto&... f) { (detail::read_field(j, record, f), ...); }, fields);
}

}  // namespace assignor::host::record_json
