#include <iostream>
#include <map>
#include <memory>

#include "storage/atomic_output.hpp"
#include "storage/generator.hpp"
#include "storage/layout.hpp"
#include "storage/tensor_file.hpp"
#include "verbs.hpp"
#include "workflow/workflow_loader.hpp"

namespace tra::cli {

namespace {

struct GenOptions {
    std::string workflow;
    std::string out_dir;
    bool force = false;
    std::int64_t max_tuples = kDefaultMaxTuples;
};

void generate(const GenOptions& opt) {
    workflow::LoadOptions load;
    load.output_dir = opt.out_dir;
    load.max_tuples = opt.max_tuples;
    const Program p = workflow::load_workflow(opt.workflow, load);
    std::map<std::string, std::unique_ptr<storage::AtomicOutput>> files;
    std::vector<NodeId> generated;
    for (NodeId id : p.input_nodes()) {
        const Node& n = p.node(id);
        const auto& src = std::get<InputOp>(n.op).source;
        if (!src.generate) continue;
        generated.push_back(id);
        if (!files.count(src.file)) {
            try {
                files[src.file] = std::make_unique<storage::AtomicOutput>(src.file, opt.force);
            } catch (const Error& e) {
                throw e.located(n.where);
            }
        }
    }
    if (generated.empty()) {
        std::cout << "no generated inputs in " << opt.workflow << "\n";
        return;
    }
    // --force replaces the datasets gen writes, not the rest of the file (as `tra run` does).
    if (opt.force) {
        for (auto& [path, file] : files) {
            std::vector<std::string> written;
            for (NodeId id : generated) {
                const auto& src = std::get<InputOp>(p.node(id).op).source;
                if (src.file == path) written.push_back(src.dataset);
            }
            file->keep_existing_objects(written);
        }
    }
    for (NodeId id : generated) {
        const Node& n = p.node(id);
        const auto& op = std::get<InputOp>(n.op);
        storage::DatasetWriter writer(files.at(op.source.file)->temp_path(), op.source.dataset,
                                      n.type.dtype, op.shape, n.type.bound);
        // A padded input's last tiles reach past its shape: only their inside is written.
        const auto layout =
            storage::RelationLayout::of(n.type, n.frontier, op.source.padded ? op.shape : Shape{});
        Tile scratch;
        for (const Key& k : n.keys) {
            const Tile tile = storage::generate_tile(*op.source.generate, n.type.dtype, op.shape,
                                                     n.type.bound, k);
            writer.write_block(layout.origin(k), layout.block(k, tile, scratch));
        }
        writer.close();
    }
    for (auto& [path, file] : files) file->commit();
    for (NodeId id : generated) {
        const Node& n = p.node(id);
        const auto& op = std::get<InputOp>(n.op);
        std::cout << "wrote " << n.name << " " << op.shape.str() << " " << name_of(n.type.dtype)
                  << " (" << op.source.generate->str() << ") to " << op.source.file << ":"
                  << op.source.dataset;
        // A density input's absent tiles are unallocated chunks: `sparse: true` reads them so.
        if (n.keys.size() < static_cast<std::size_t>(n.frontier.product()))
            std::cout << " (" << n.keys.size() << " of " << n.frontier.product()
                      << " tiles; read it back with sparse: true)";
        std::cout << "\n";
    }
}

}  // namespace

void add_gen(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "gen",
        "Write a workflow's generated inputs (generate:) to HDF5: to their file:/dataset: "
        "if given, else to NAME.h5:/NAME beside the workflow");
    auto opt = std::make_shared<GenOptions>();
    cmd->add_option("workflow", opt->workflow, "Workflow YAML file")->required();
    cmd->add_option("--out-dir", opt->out_dir,
                    "Resolve relative output paths against this folder instead of the "
                    "workflow's folder");
    cmd->add_flag("--force", opt->force,
                  "Replace the datasets gen writes in existing files, keeping the rest");
    add_max_tuples_option(cmd, opt->max_tuples);
    cmd->callback([opt, &exit_code] {
        generate(*opt);
        exit_code = 0;
    });
}

}  // namespace tra::cli
