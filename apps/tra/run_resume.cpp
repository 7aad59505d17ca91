#include "run_resume.hpp"

#include <filesystem>
#include <iostream>

#include "runtime/broadcast_text.hpp"
#include "storage/checkpoint_file.hpp"

namespace tra::cli {

ResumePoint find_resume_point(const RunOptions& opt, const Prepared& prep, int ranks,
                              const runtime::RankAgreement& agree, MPI_Comm comm) {
    ResumePoint point;
    if (opt.resume_dir.empty()) return point;
    const Program& p = *prep.program;
    std::string iteration = "1";
    agree.step([&] {
        if (agree.rank() != 0) return;
        const std::string path = storage::checkpoint_path(opt.resume_dir);
        if (!std::filesystem::exists(path)) {
            std::cout << "resume: no checkpoint in " << opt.resume_dir
                      << " yet: starting from the first iteration\n";
            return;
        }
        const storage::CheckpointStamp stamp = storage::read_checkpoint_stamp(path);
        if (stamp.plan != prep.name || stamp.sites != ranks)
            throw Error("the checkpoint " + path + " was written by plan " + stamp.plan + " on " +
                        std::to_string(stamp.sites) + " ranks; this run is plan " + prep.name +
                        " on " + std::to_string(ranks) +
                        " (resume with the same plan and ranks, so the outputs are those of an "
                        "uninterrupted run)");
        if (stamp.iteration < 1 || stamp.iteration >= p.repeat->times)
            throw Error("the checkpoint " + path + " is after iteration " +
                        std::to_string(stamp.iteration) + ", but the loop has " +
                        std::to_string(p.repeat->times) + " iterations");
        std::cout << "resume: from " << path << ", after iteration " << stamp.iteration << " of "
                  << p.repeat->times << "\n";
        iteration = std::to_string(stamp.iteration + 1);
    });
    runtime::broadcast_text(iteration, comm);
    point.first_iteration = std::stoll(iteration);
    if (point.first_iteration == 1) return point;
    point.checkpoint = storage::checkpoint_path(opt.resume_dir);
    for (const Carry& c : p.repeat->carry)
        point.sources[c.input] =
            InputSource{point.checkpoint, storage::carry_dataset(p.node(c.input).name), {}, {}};
    return point;
}

void restore_observations(const ResumePoint& resume, const Program& program,
                          const std::vector<std::string>& temp_paths) {
    if (resume.first_iteration == 1) return;
    for (std::size_t i = 0; i < program.outputs.size(); ++i) {
        const Output& o = program.outputs[i];
        if (o.iteration > 0 && o.iteration < resume.first_iteration)
            storage::copy_dataset_values(resume.checkpoint, storage::observed_dataset(i),
                                         temp_paths.at(i), o.dataset);
    }
}

}  // namespace tra::cli
