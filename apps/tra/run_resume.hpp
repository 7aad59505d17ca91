#pragma once
// `tra run --checkpoint DIR --resume DIR` (docs/cli.md, docs/runtime.md "Checkpoint and
// restart"): where a loop starts. A run resumes from DIR/checkpoint.h5 when there is one, else
// starts from the first iteration, so one command line serves a job's first start and every
// requeue (docs/cluster.md).
#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "run_options.hpp"
#include "run_prepare.hpp"
#include "runtime/rank_agreement.hpp"

namespace tra::cli {

struct ResumePoint {
    std::int64_t first_iteration = 1;       // 1: from the start
    std::string checkpoint;                 // the file resumed from, when resuming
    std::map<NodeId, InputSource> sources;  // the carried inputs' values in it
};

// Rank 0 reads the checkpoint's stamp and checks it against this run (the same plan on as many
// ranks, an iteration inside the loop; else BadInput naming the file); every rank gets the
// result. Agreed: a failure ends every rank.
ResumePoint find_resume_point(const RunOptions& opt, const Prepared& prep, int ranks,
                              const runtime::RankAgreement& agree, MPI_Comm comm);

// Rank 0: the observations made before the resume point (Output::iteration), copied from the
// checkpoint into the outputs' temporary files (program.outputs order), which hold them empty.
void restore_observations(const ResumePoint& resume, const Program& program,
                          const std::vector<std::string>& temp_paths);

}  // namespace tra::cli
