// The per-step path of a client context: update_calendar, write (pack into
// the send buffers by precomputed runs), and close.
#include <algorithm>
#include <cstring>
#include <iostream>

#include "client/agree.h"
#include "client/context.h"
#include "client/errors.h"
#include "transport/event.h"

namespace foehn::client {

using transport::EventHeader;
using transport::EventType;

namespace {

// Copies values [offset, offset+count) of the packed stream described by
// runs/run_first out of `data`, converting T to U.
template <class T, class U>
void pack_values(const std::vector<grid::Run>& runs, const std::vector<std::int64_t>& run_first, const T* data,
                 std::int64_t offset, std::int64_t count, U* out) {
  auto k = static_cast<std::size_t>(std::upper_bound(run_first.begin(), run_first.end(), offset) - run_first.begin() - 1);
  std::int64_t done = 0;
  while (done < count) {
    const grid::Run& r = runs[k];
    const std::int64_t into = offset + done - run_first[k];
    const std::int64_t n = std::min(r.length - into, count - done);
    const T* src = data + r.from + into;
    if constexpr (std::is_same_v<T, U>) std::memcpy(out + done, src, static_cast<std::size_t>(n) * sizeof(U));
    else
      for (std::int64_t i = 0; i < n; ++i) out[done + i] = static_cast<U>(src[i]);
    done += n;
    ++k;
  }
}

// A fragment smaller than this is not worth an event of its own: the
// current buffer is sent and the fragment goes into a fresh one.
constexpr std::size_t kMinFragmentBytes = 4096;

}  // namespace

void Context::update_calendar(std::int64_t step) {
  check_open("foehn_update_calendar");
  if (!closed_definition_)
    fail(FOEHN_ERR_STATE, "foehn_update_calendar: context '" + id_ + "' is still being defined (call foehn_close_definition)");
  if (step < 0 || step <= step_)
    fail(FOEHN_ERR_ARGUMENT, "foehn_update_calendar: context '" + id_ + "': step " + std::to_string(step) +
                                 " does not follow the current step " + std::to_string(step_));
  step_ = step;
  const std::int64_t now = start_ + step * timestep_us_;
  now_seconds_ = static_cast<double>(now - origin_) / static_cast<double>(calendar::kMicrosPerSecond);
  for (size_t f = 0; f < files_.size(); ++f) {
    FileSchedule& fs = files_[f];
    fs.due = false;
    // All output instants reached by this step make one record stamped now.
    while (fs.schedule->instant(fs.next_k) <= now) {
      fs.due = true;
      ++fs.next_k;
    }
    if (!fs.due) continue;
    fs.record = fs.records++;
    if (attached_) attached_->on_announce(static_cast<int>(f), fs.record, now_seconds_);
    else if (rank_ == 0) send_event_to_all(EventType::announce, static_cast<std::uint32_t>(f), fs.record, now_seconds_);
  }
  // What the previous step wrote leaves now, while the model computes.
  for (auto& ch : channels_) {
    ch.send_current();
    ch.progress();
  }
}

int Context::handle(const std::string& field_id) const {
  if (!closed_definition_)
    fail(FOEHN_ERR_STATE, "field '" + field_id + "': context '" + id_ +
                              "' is still being defined (call foehn_close_definition first)");
  auto it = field_index_.find(field_id);
  if (it == field_index_.end())
    fail(FOEHN_ERR_ARGUMENT, "unknown field '" + field_id + "' in context '" + id_ + "'");
  return it->second;
}

bool Context::is_active(int handle) const {
  if (!closed_definition_ || closed_ || handle < 0 || handle >= static_cast<int>(fields_.size())) return false;
  for (int o : fields_[handle].outputs)
    if (files_[outputs_[o].file].due) return true;
  return false;
}

void Context::make_room(int server) {
  transport::SendChannel& ch = channels_[server];
  if (ch.ready()) return;
  // Before blocking on one server, let everything pending to the others
  // leave: a server waiting in a collective write for another server's data
  // must never wait on data held back here.
  for (auto& other : channels_) other.send_current();
  ch.acquire();
}

template <class T, class U>
void Context::pack(OutputVar& out, int server, const T* data, std::int64_t record) {
  const Destination& d = out.dest[server];
  transport::SendChannel& ch = channels_[server];
  std::int64_t offset = 0;
  while (offset < d.total) {
    const std::size_t want = std::min<std::size_t>((d.total - offset) * sizeof(U), ch.max_payload());
    if (!ch.ready() || ch.room() < std::min(want, kMinFragmentBytes)) {
      ch.send_current();
      make_room(server);
    }
    const std::int64_t count = std::min<std::int64_t>(d.total - offset, ch.room() / sizeof(U));
    EventHeader h{EventType::data, key_, static_cast<std::uint32_t>(out.plan_index), sizeof(U), record, offset, count, 0};
    U* payload = reinterpret_cast<U*>(ch.append(h, count * sizeof(U)));
    pack_values(d.runs, d.run_first, data, offset, count, payload);
    offset += count;
  }
}

template <class T, class U>
void Context::pack_attached(OutputVar& out, const T* data, std::int64_t record) {
  const Destination& d = out.dest[0];
  if (d.total == 0) return;
  U* packed = reinterpret_cast<U*>(scratch_.data());
  pack_values(d.runs, d.run_first, data, 0, d.total, packed);
  EventHeader h{EventType::data, key_, static_cast<std::uint32_t>(out.plan_index), sizeof(U), record, 0, d.total, 0};
  attached_->on_data(rank_, h, reinterpret_cast<const std::byte*>(packed));
}

template <class T>
void Context::write(int handle, const T* data, std::size_t n) {
  check_open("foehn_write");
  if (!closed_definition_)
    fail(FOEHN_ERR_STATE, "foehn_write: context '" + id_ + "' is still being defined (call foehn_close_definition)");
  if (handle < 0 || handle >= static_cast<int>(fields_.size()))
    fail(FOEHN_ERR_ARGUMENT, "foehn_write: invalid field handle " + std::to_string(handle) + " in context '" + id_ + "'");
  Field& field = fields_[handle];
  if (field.local_size < 0) return;  // no enabled file uses this field
  if (static_cast<std::int64_t>(n) != field.local_size)
    fail(FOEHN_ERR_ARGUMENT, "field '" + field.id + "' in context '" + id_ + "': expected " +
                                 std::to_string(field.local_size) + " values (local grid " + field.shape_text +
                                 "), given " + std::to_string(n));
  if (n > 0 && data == nullptr) fail(FOEHN_ERR_ARGUMENT, "field '" + field.id + "': data is NULL");
  for (int o : field.outputs) {
    OutputVar& out = outputs_[o];
    const FileSchedule& fs = files_[out.file];
    if (!fs.due) continue;
    if (out.last_record == fs.record)
      fail(FOEHN_ERR_ARGUMENT, "field '" + field.id + "' in context '" + id_ + "' was already written at step " +
                                   std::to_string(step_));
    out.last_record = fs.record;
    for (size_t s = 0; s < out.dest.size(); ++s) {
      if (attached_) {
        if (out.elem == 8) pack_attached<T, double>(out, data, fs.record);
        else pack_attached<T, float>(out, data, fs.record);
      } else if (out.dest[s].total) {
        if (out.elem == 8) pack<T, double>(out, static_cast<int>(s), data, fs.record);
        else pack<T, float>(out, static_cast<int>(s), data, fs.record);
      }
    }
  }
}

template void Context::write<float>(int, const float*, std::size_t);
template void Context::write<double>(int, const double*, std::size_t);

void Context::send_event_to_all(EventType type, std::uint32_t item, std::int64_t record, double time) {
  for (size_t s = 0; s < channels_.size(); ++s) {
    if (!channels_[s].fits(0)) {
      channels_[s].send_current();
      make_room(static_cast<int>(s));
    }
    EventHeader h{type, key_, item, 0, record, 0, 0, time};
    channels_[s].append(h, 0);
  }
}

void Context::close() {
  check_open("foehn_context_close");
  closed_ = true;
  if (!closed_definition_) return;  // nothing was sent or created
  if (attached_) {
    collectively(comm_, [&] {
      attached_->close();
      for (const auto& w : attached_->warnings())
        std::cerr << "foehn: warning: context '" << id_ << "' rank " << rank_ << ": " << w << std::endl;
    });
    return;
  }
  send_event_to_all(EventType::context_close, 0, 0, 0);
  for (auto& ch : channels_) ch.drain();
  collect_acks("writing the files");
}

}  // namespace foehn::client
