#include "server/server_report.h"

#include <string>

#include "transport/event.h"

namespace foehn::server {

void send_reports(const std::vector<report::ServerFigures>& all, const report::Details& files,
                  const std::vector<int>& model_roots, MPI_Comm comm) {
  for (std::size_t k = 0; k < model_roots.size(); ++k) {
    MPI_Send(all.data(), static_cast<int>(all.size() * sizeof(report::ServerFigures)), MPI_BYTE, model_roots[k],
             transport::kTagReport, comm);
    report::Details of_model;
    for (const auto& f : files.files)
      if (f.code == static_cast<int>(k)) of_model.files.push_back(f);
    const std::string text = report::to_text(of_model);
    MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, model_roots[k], transport::kTagReport, comm);
  }
}

}  // namespace foehn::server
