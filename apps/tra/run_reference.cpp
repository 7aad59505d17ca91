#include <chrono>
#include <iostream>

#include "run_options.hpp"
#include "runtime/launch_environment.hpp"
#include "runtime/output_files.hpp"
#include "runtime/reference_evaluator.hpp"
#include "workflow/workflow_loader.hpp"

namespace tra::cli {

void run_reference(const RunOptions& opt) {
    if (auto ranks = runtime::launcher_world_size(); ranks && *ranks > 1)
        throw Error("--reference evaluates on one process, but the launcher started " +
                    std::to_string(*ranks) + " ranks; run it without mpirun or with -n 1");
    workflow::LoadOptions load;
    load.output_dir = opt.out_dir;
    load.max_tuples = opt.max_tuples;
    const auto start = std::chrono::steady_clock::now();
    const Program p = workflow::load_workflow(opt.workflow, load);
    runtime::OutputFiles files(p, opt.force);
    runtime::ReferenceEvaluator evaluator(p);
    const std::int64_t times = p.repeat ? p.repeat->times : 1;
    for (;;) {
        for (NodeId id = 0; id < p.nodes.size(); ++id) {
            if (!p.node(id).needed) continue;
            const auto t0 = std::chrono::steady_clock::now();
            const TensorRelation& r = evaluator.evaluate(id);
            if (opt.progress)
                std::cerr
                    << "  "
                    << (times > 1 ? "iteration " + std::to_string(evaluator.iteration()) + ": "
                                  : "")
                    << p.node(id).name << ": " << r.tuples.size() << " tuples in "
                    << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
                    << " s\n";
        }
        for (const Output& o : p.outputs)
            if ((o.iteration ? o.iteration : times) == evaluator.iteration())
                files.write(o, evaluator.evaluate(o.node));
        if (evaluator.iteration() >= times) break;
        evaluator.next_iteration();
    }
    files.commit();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const Output& o : p.outputs)
        std::cout << "wrote " << p.node(o.node).name << " to " << o.file << ":" << o.dataset
                  << "\n";
    std::cout << "reference evaluation of " << p.name << " took " << seconds << " s\n";
}

}  // namespace tra::cli
