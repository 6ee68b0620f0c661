#include "transport/credit_board.h"

#include <stdexcept>
#include <string>

#include "transport/event.h"
#include "transport/send_channel.h"

namespace foehn::transport {

std::uint16_t CreditBoard::enrol(SendChannel* channel) {
  for (std::size_t i = 0; i < channels_.size(); ++i)
    if (!channels_[i]) {
      channels_[i] = channel;
      return static_cast<std::uint16_t>(i + 1);
    }
  if (channels_.size() >= 0xfffe) throw std::runtime_error("too many send channels open at once (65534)");
  channels_.push_back(channel);
  return static_cast<std::uint16_t>(channels_.size());
}

void CreditBoard::leave(std::uint16_t id) {
  if (id >= 1 && id <= channels_.size()) channels_[id - 1] = nullptr;
}

bool CreditBoard::poll() {
  bool any = false;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagCredit, comm_, &flag, &st);
    if (!flag) return any;
    CreditMessage m;
    MPI_Recv(&m, sizeof m, MPI_BYTE, st.MPI_SOURCE, kTagCredit, comm_, MPI_STATUS_IGNORE);
    any = true;
    // Credit for a channel already closed (its context ended) is dropped.
    if (m.channel < 1 || m.channel > channels_.size() || !channels_[m.channel - 1]) continue;
    SendChannel& ch = *channels_[m.channel - 1];
    if (ch.dest() != st.MPI_SOURCE)
      throw std::runtime_error("credit for channel " + std::to_string(m.channel) + " came from rank " +
                               std::to_string(st.MPI_SOURCE) + ", not its server " + std::to_string(ch.dest()));
    ch.add_credit(m.bytes);
  }
}

}  // namespace foehn::transport
