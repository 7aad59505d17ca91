// Reading plan files (docs/plan-format.md): the file-level fields (format, name, sites, the
// workflow's path and hash, the logical rewrites it was planned after) and the public entry
// points. A plan file is untrusted hand-editable input, so every node is checked before it
// enters the ia::Plan (whose own checks are internal invariants, ErrorKind::Failed) and the plan
// is validated node by node, so each error can be placed at the node's line and column in the
// file; those node checks are in plan_file_nodes.cpp.
#include "workflow/plan_file.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>

#include "core/content_hash.hpp"
#include "core/error.hpp"
#include "optimizer/logical_rewrites.hpp"
#include "workflow/plan_file_nodes.hpp"
#include "workflow/yaml_fields.hpp"

namespace tra::workflow {

namespace fs = std::filesystem;

namespace {

// Builds the ia::Plan from the file's nodes; one instance per load.
class PlanReader {
  public:
    // `text`: the plan itself, when it comes from memory rather than the file `path` (which
    // then only names it in errors and, by its folder, resolves a relative workflow path).
    PlanReader(const std::string& path, const LoadOptions& options,
               std::optional<std::string> text = std::nullopt)
        : path_(path), options_(options), text_(std::move(text)) {}

    // The workflow's program as the plan saw it: `tra plan` plans after the logical rewrites,
    // and the file lists those it applied; the same rewrites must apply again.
    Program program_of(const Field& doc, const std::string& workflow_path) const {
        LoadOptions options = options_;
        if (doc.has("tiling")) {  // the tiles the plan chose for the tile: auto inputs
            const Field tiling = doc.at("tiling");
            if (!tiling.is_map()) tiling.fail("tiling is a map from an input to its tile sizes");
            for (const auto& [input, tile] : tiling.entries()) {
                const std::vector<std::int64_t> sizes = tile.as_ints();
                for (std::int64_t t : sizes)
                    if (t < 1) tile.fail("tile sizes are positive");
                options.tiling[input] = Shape(sizes);
            }
        }
        Program program = [&] {
            try {
                return load_workflow(workflow_path, options);
            } catch (const Error& e) {
                // A tiling the workflow refuses is the plan file's fault: say where it is.
                if (doc.has("tiling") && e.where().file != workflow_path)
                    throw e.located(doc.at("tiling").where());
                throw;
            }
        }();
        if (!program.tiling_space.empty() && !doc.has("tiling"))
            doc.fail("the workflow has inputs with tile: auto, but the plan records no tiling");
        if (!doc.has("rewrites")) return program;
        const Field listed = doc.at("rewrites");
        Program rewritten = optimizer::apply_logical_rewrites(program).program;
        if (rewritten.rewrites != listed.as_strings()) {
            std::string applied;
            for (const auto& r : rewritten.rewrites) applied += (applied.empty() ? "" : ", ") + r;
            listed.fail("the plan was made after other logical rewrites than this tra applies (" +
                        (applied.empty() ? std::string("none") : applied) + ")");
        }
        return rewritten;
    }

    LoadedPlan run() {
        // load_yaml's own message speaks of workflows; say which kind of file is missing.
        if (!text_ && !std::ifstream(path_)) throw Error("cannot read plan file '" + path_ + "'");
        const Field doc(text_ ? parse_yaml(*text_, path_) : load_yaml(path_), path_, "");
        check_format(doc);
        doc.allow_only(
            {"format", "name", "sites", "ranked_by", "rewrites", "tiling", "workflow", "nodes"});
        std::optional<RankedBy> ranked_by;
        if (doc.has("ranked_by")) {
            const Field r = doc.at("ranked_by");
            r.allow_only({"cost", "machine", "machine_hash"});
            ranked_by = RankedBy{r.at("cost").as_string(), r.at("machine").as_string(),
                                 r.at("machine_hash").as_string()};
        }
        const std::string name = doc.at("name").as_string();
        const Field sites_field = doc.at("sites");
        const std::int64_t sites = sites_field.as_int();
        if (sites < 1 || sites > 1'000'000) sites_field.fail("sites must be between 1 and 1000000");

        const Field wf = doc.at("workflow");
        wf.allow_only({"path", "hash"});
        const std::string workflow_path = resolve(wf.at("path"));
        const std::string hash = check_hash(wf, workflow_path);
        auto program = std::make_unique<const Program>(program_of(doc, workflow_path));

        // The plan points at *program, which stays put when the unique_ptr moves.
        ia::Plan plan(*program, static_cast<int>(sites));
        const Field nodes = doc.at("nodes");
        for (const Field& f : nodes.elements()) add_plan_node(plan, f);
        set_plan_results(plan, nodes);
        return LoadedPlan{std::move(program), std::move(plan), name, workflow_path, hash,
                          ranked_by};
    }

  private:
    void check_format(const Field& doc) const {
        if (!doc.is_map() || !doc.has("format"))
            throw Error(std::string("not a plan file: it must start with 'format: ") + kPlanFormat +
                            "' (docs/plan-format.md)",
                        doc.where());
        const Field f = doc.at("format");
        if (f.as_string() != kPlanFormat)
            f.fail("unsupported plan format '" + f.as_string() + "': this tra reads " +
                   kPlanFormat);
    }

    // The workflow path, relative to the plan file's folder unless absolute.
    std::string resolve(const Field& f) const {
        const std::string p = f.as_string();
        if (p.empty()) f.fail("the workflow path is empty");
        if (fs::path(p).is_absolute()) return p;
        // A plan from memory names its workflow relative to the current directory.
        const fs::path folder = text_ ? fs::path() : fs::path(path_).parent_path();
        return (folder / p).lexically_normal().string();
    }

    std::string check_hash(const Field& wf, const std::string& workflow_path) const {
        const Field f = wf.at("hash");
        const std::string recorded = f.as_string();
        if (recorded.rfind("fnv1a64:", 0) != 0)
            f.fail("unsupported hash '" + recorded + "' (expected fnv1a64:<16 hex digits>)");
        std::string actual;
        try {
            actual = file_content_hash(workflow_path);
        } catch (const Error&) {
            throw Error("cannot read the plan's workflow '" + workflow_path + "'",
                        wf.at("path").where());
        }
        if (actual != recorded)
            f.fail("the workflow changed since the plan was made: '" + workflow_path +
                   "' now has hash " + actual + ", the plan was made for " + recorded +
                   "; make the plan again (tra plan ... -o) or restore the workflow");
        return recorded;
    }

    std::string path_;
    const LoadOptions& options_;
    std::optional<std::string> text_;
};

}  // namespace

bool is_plan_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    static const std::regex format_line(R"((^|\n)format:\s*"?tra-plan/)");
    return std::regex_search(text.str(), format_line);
}

LoadedPlan load_plan_file(const std::string& path, const LoadOptions& options) {
    return PlanReader(path, options).run();
}

LoadedPlan read_plan_text(const std::string& text, const std::string& source,
                          const LoadOptions& options) {
    return PlanReader(source, options, text).run();
}

}  // namespace tra::workflow
