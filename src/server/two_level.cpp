#include "server/two_level.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

namespace foehn::server {

std::vector<int> assign_files_to_pools(const output::ContextPlan& plan, int pools) {
  const std::size_t n = plan.files.size();
  std::vector<double> bytes(n, 0);
  for (const auto& v : plan.variables) {
    double values = 1;
    for (std::int64_t d : plan.shape(v)) values *= static_cast<double>(d);
    bytes.at(static_cast<std::size_t>(v.file)) += values * (v.prec == 8 ? 8 : 4);
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bytes[a] > bytes[b]; });
  std::vector<double> load(static_cast<std::size_t>(std::max(pools, 1)), 0);
  std::vector<int> pool(n, 0);
  for (std::size_t f : order) {
    const auto lightest = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    pool[f] = static_cast<int>(lightest);
    load[lightest] += bytes[f];
  }
  return pool;
}

std::vector<int> pool_starts(int level2_ranks, int pools) {
  std::vector<int> starts(static_cast<std::size_t>(pools) + 1, 0);
  for (int p = 0; p < pools; ++p) starts[p + 1] = starts[p] + level2_ranks / pools + (p < level2_ranks % pools ? 1 : 0);
  return starts;
}

std::vector<std::byte> encode_block(const BlockHeader& h, const grid::Box& box, const grid::Box& from,
                                    const std::byte* data) {
  const std::size_t dims = box.start.size() * 2 * sizeof(std::int64_t);
  std::vector<std::byte> msg(sizeof h + dims + static_cast<std::size_t>(box.size()) * static_cast<std::size_t>(h.elem));
  std::memcpy(msg.data(), &h, sizeof h);
  std::memcpy(msg.data() + sizeof h, box.start.data(), dims / 2);
  std::memcpy(msg.data() + sizeof h + dims / 2, box.count.data(), dims / 2);
  std::byte* out = msg.data() + sizeof h + dims;
  for (const grid::Run& r : grid::make_runs(from, box))
    std::memcpy(out + r.to * h.elem, data + r.from * h.elem, static_cast<std::size_t>(r.length) * h.elem);
  return msg;
}

const std::byte* decode_block(const std::byte* msg, std::size_t size, BlockHeader& h, grid::Box& box) {
  if (size < sizeof h) throw std::runtime_error("a level-1 block message of " + std::to_string(size) + " bytes");
  std::memcpy(&h, msg, sizeof h);
  if (h.ndims < 0 || h.ndims > 16 || (h.elem != 4 && h.elem != 8))
    throw std::runtime_error("a level-1 block message with a bad header");
  const std::size_t dims = static_cast<std::size_t>(h.ndims) * 2 * sizeof(std::int64_t);
  if (size < sizeof h + dims) throw std::runtime_error("a level-1 block message cut short");
  box.start.resize(static_cast<std::size_t>(h.ndims));
  box.count.resize(static_cast<std::size_t>(h.ndims));
  std::memcpy(box.start.data(), msg + sizeof h, dims / 2);
  std::memcpy(box.count.data(), msg + sizeof h + dims / 2, dims / 2);
  for (std::int64_t c : box.count)
    if (c < 0) throw std::runtime_error("a level-1 block message with a negative count");
  if (size != sizeof h + dims + static_cast<std::size_t>(box.size()) * static_cast<std::size_t>(h.elem))
    throw std::runtime_error("a level-1 block message whose size does not match its box");
  return msg + sizeof h + dims;
}

}  // namespace foehn::server
