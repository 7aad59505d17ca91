#include "workflow/workflow_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include "storage/same_file.hpp"
#include "tra/einsum_lowering.hpp"
#include "tra/fold_fills.hpp"
#include "tra/program_builder.hpp"
#include "tra/tiling_classes.hpp"
#include "workflow/generator_field.hpp"
#include "workflow/input_files.hpp"
#include "workflow/kernel_field.hpp"
#include "workflow/tile_field.hpp"
#include "workflow/yaml_fields.hpp"

namespace tra::workflow {

namespace fs = std::filesystem;

namespace {

const std::set<std::string> kOperators = {"join", "aggregate", "rekey",  "filter",  "transform",
                                          "tile", "concat",    "einsum", "softmax", "log_softmax"};

void check_name(const std::string& name, const SourceLocation& where) {
    static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
    if (!std::regex_match(name, identifier))
        throw Error("'" + name +
                        "' is not a valid name (letters, digits and _, not starting "
                        "with a digit)",
                    where);
}

std::string resolve(const std::string& folder, const std::string& path) {
    if (path.empty() || fs::path(path).is_absolute()) return path;
    return (fs::path(folder) / path).lexically_normal().string();
}

StepSource source_of(const Field& step) {
    StepSource src{step.where(), {}};
    for (const auto& [key, value] : step.entries()) src.fields[key] = value.where();
    return src;
}

class WorkflowLoader {
  public:
    WorkflowLoader(const std::string& path, const LoadOptions& options)
        : path_(path), options_(options) {
        folder_ = fs::path(path).parent_path().string();
        if (folder_.empty()) folder_ = ".";
        out_folder_ = options.output_dir.empty() ? folder_ : options.output_dir;
    }

    Program load() {
        Field root(load_yaml(path_), path_, "");
        if (!root.is_map()) root.fail("a workflow is a map with name, inputs, program, outputs");
        root.allow_only({"name", "dtype", "sites", "inputs", "program", "repeat", "outputs"});
        // `tile: auto`: a first pass over the steps, without building, finds which dimensions
        // must be cut alike (tiling_classes.hpp); the program is then built with the tiling the
        // options give, or by default one tile along each free auto dimension.
        if (has_auto_tile(root)) {
            probe_ = true;
            build(root);
            space_ = classes_.space();
            probe_ = false;
            input_files_.clear();
            slices_.clear();
            check_chosen_tiling(options_.tiling, space_, path_);
        }
        Program p = build(root);
        classes_.crop_outputs(p);  // padded dimensions (tiling_classes.hpp)
        p.tiling_space = std::move(space_);
        p.tiling = std::move(tiling_);
        return p;
    }

  private:
    Program build(const Field& root) {
        DType dtype = DType::F64;
        if (root.has("dtype")) dtype = parse_dtype_field(root.at("dtype"));
        ProgramBuilder b(root.at("name").as_string(), dtype);
        b.set_max_tuples(options_.max_tuples, options_.tuple_limit_scope);
        if (root.has("sites")) {
            const auto sites = root.at("sites").as_int();
            if (sites < 1) root.at("sites").fail("sites must be at least 1");
            b.set_sites(static_cast<int>(sites));
        }
        if (root.has("inputs"))
            for (const auto& [name, f] : root.at("inputs").entries()) add_input(b, name, f, dtype);
        if (root.has("program")) add_steps(b, root.at("program"));
        if (root.has("repeat")) set_repeat(b, root.at("repeat"));
        if (!root.has("repeat") && !slices_.empty())
            throw Error("slice: an input read a slice at a time needs a loop (repeat:)",
                        slices_.front());
        if (root.has("outputs"))
            for (const auto& [name, f] : root.at("outputs").entries()) add_output(b, name, f);
        if (probe_) return {};
        return b.finish();
    }

    static DType parse_dtype_field(const Field& f) {
        auto d = parse_dtype(f.as_string());
        if (!d) f.fail("unknown dtype '" + f.as_string() + "' (expected f32 or f64)");
        return *d;
    }

    void add_input(ProgramBuilder& b, const std::string& name, const Field& f, DType dtype) {
        check_name(name, f.where());
        if (!f.is_map()) f.fail("an input is a map with shape, tile and file or generate");
        f.allow_only({"shape", "tile", "dtype", "file", "dataset", "generate", "slice", "sparse"});
        const Shape shape(f.at("shape").as_ints());
        const std::vector<std::int64_t> written =
            f.has("tile") ? parse_tile_field(f.at("tile"), shape) : shape.values();
        const bool automatic = std::count(written.begin(), written.end(), 0) > 0;
        if (automatic && (f.has("slice") || f.has("sparse")))
            f.at("tile").fail(
                "tile: auto is not available for inputs read a slice at a time or "
                "sparse (their tiles are the file's or the loop's); give " +
                name + " an explicit tile");
        if (probe_) {
            classes_.add_input(name, shape, written);
            return;
        }
        const Shape tile = automatic ? resolve_auto_tile(name, f.at("tile"), shape, written,
                                                         options_.tiling, space_)
                                     : Shape(written);
        if (automatic) tiling_[name] = tile;
        if (f.has("dtype")) dtype = parse_dtype_field(f.at("dtype"));
        InputSource source;
        source.padded = automatic && pads_auto_only(shape, tile, written);
        source.dataset = f.has("dataset") ? f.at("dataset").as_string() : "/" + name;
        if (f.has("generate")) {
            source.generate = parse_generator(f.at("generate"));
            source.file =
                resolve(out_folder_, f.has("file") ? f.at("file").as_string() : name + ".h5");
        } else if (f.has("file")) {
            source.file = resolve(folder_, f.at("file").as_string());
        } else {
            f.fail("input " + name + " needs a file (with dataset) or generate");
        }
        if (f.has("slice")) {  // per iteration of a loop (checked in load: needs a repeat)
            const Field slice = f.at("slice");
            if (!slice.is_map()) slice.fail("slice is a map {dim: D, size: B}");
            slice.allow_only({"dim", "size"});
            const auto dim = slice.at("dim").as_int();
            if (dim < 0) slice.at("dim").fail("dim is non-negative");
            source.slice =
                InputSource::Slice{static_cast<std::size_t>(dim), slice.at("size").as_int()};
            slices_.push_back(slice.where());
        }
        if (f.has("sparse")) source.sparse = f.at("sparse").as_bool();
        StepSource src = source_of(f);
        if (!source.generate) input_files_.push_back({name, source.file, src.at("file")});
        // A sparse file's tiles are its allocated chunks, so its key set (and every plan) depends
        // on the file; unchecked, every tile is taken as present.
        std::optional<std::vector<Key>> present;
        if (source.sparse && !source.generate && options_.check_input_files &&
            shape.size() == tile.size())
            present = sparse_input_tiles(source, tile, src);
        const NodeId id = b.add_input(name, shape, tile, dtype, source, src, std::move(present));
        if (!source.generate && options_.check_input_files) check_input_file(b.node(id), src);
    }

    void add_steps(ProgramBuilder& b, const Field& program) {
        if (program.is_null()) return;
        // Names of all steps first, so a reference to a later step gets its own message.
        std::map<std::string, SourceLocation> defined_at;
        const auto steps = program.elements();
        for (const Field& item : steps) {
            if (!item.is_map() || item.node().size() != 1)
                item.fail("each step is a map with one entry: NAME: {operator: ...}");
            const auto [name, body] = item.entries().front();
            check_name(name, body.where());
            if (defined_at.count(name) || b.lookup_optional(name))
                body.fail("duplicate name '" + name + "'");
            defined_at[name] = body.where();
        }
        for (const Field& item : steps) {
            const auto [name, body] = item.entries().front();
            add_step(b, name, body, defined_at);
            defined_at.erase(name);
        }
    }

    // A name used by a step must already be defined: no forward references, hence no cycles.
    static void check_defined(const std::string& used, const Field& f,
                              const std::map<std::string, SourceLocation>& later) {
        auto it = later.find(used);
        if (it != later.end())
            f.fail("'" + used + "' is defined later (line " + std::to_string(it->second.line) +
                   "); a step may use only inputs and earlier steps");
    }

    void add_step(ProgramBuilder& b, const std::string& name, const Field& body,
                  const std::map<std::string, SourceLocation>& later) {
        if (!body.is_map())
            body.fail("a step is a map such as {join: [A, B], on: ..., kernel: ...}");
        // An einsum's `join:` names its scalar join op, not a join operator.
        std::string op = body.has("einsum") ? "einsum" : "";
        for (const auto& [key, value] : body.entries())
            if (kOperators.count(key) && !(op == "einsum" && (key == "einsum" || key == "join"))) {
                if (!op.empty())
                    body.fail("a step has one operator, but this one has " + op + " and " + key);
                op = key;
            }
        if (op.empty())
            body.fail(
                "no operator (expected one of: aggregate, concat, einsum, filter, join, "
                "log_softmax, rekey, softmax, tile, transform)");
        const StepSource src = source_of(body);
        auto operand = [&](const Field& f) {
            const std::string used = f.as_string();
            check_defined(used, f, later);
            return used;
        };
        if (op == "join") {
            body.allow_only({"join", "on", "kernel"});
            const auto sides = body.at("join").elements();
            if (sides.size() != 2) body.at("join").fail("join takes two relations: [LEFT, RIGHT]");
            const auto on = body.at("on").elements();
            if (on.size() != 2)
                body.at("on").fail("on takes two lists: [[left positions], [right positions]]");
            const auto kernel = parse_kernel(body.at("kernel"), KernelUse::Join);
            if (probe_)
                return classes_.add_join(name, operand(sides[0]), operand(sides[1]),
                                         on[0].as_positions(), on[1].as_positions(), kernel,
                                         body.where());
            const std::vector<std::string> sides_filled =
                filled_operands(b, classes_, name, {operand(sides[0]), operand(sides[1])}, src);
            b.add_join(name, sides_filled[0], sides_filled[1], on[0].as_positions(),
                       on[1].as_positions(), kernel, src);
        } else if (op == "aggregate") {
            body.allow_only({"aggregate", "by", "kernel"});
            const auto kernel = parse_kernel(body.at("kernel"), KernelUse::Aggregate);
            const std::string of = operand(body.at("aggregate"));
            const KeyPositions by = body.at("by").as_positions();
            if (probe_) return classes_.add_aggregate(name, of, by, kernel);
            b.add_aggregate(name, filled_operands(b, classes_, name, {of}, src)[0], by, kernel,
                            src);
        } else if (op == "rekey") {
            body.allow_only({"rekey", "key"});
            if (probe_)
                return classes_.add_tiling_dependent(name, operand(body.at("rekey")),
                                                     "a rekey computes keys from key values",
                                                     body.where());
            b.add_rekey(name, operand(body.at("rekey")), body.at("key").as_string(), src);
        } else if (op == "filter") {
            body.allow_only({"filter", "where"});
            if (probe_)
                return classes_.add_tiling_dependent(name, operand(body.at("filter")),
                                                     "a filter tests key values", body.where());
            b.add_filter(name, operand(body.at("filter")), body.at("where").as_string(), src);
        } else if (op == "transform") {
            body.allow_only({"transform", "kernel"});
            const auto kernel = parse_kernel(body.at("kernel"), KernelUse::Transform);
            if (probe_)
                return classes_.add_transform(name, operand(body.at("transform")), kernel,
                                              body.where());
            b.add_transform(name, operand(body.at("transform")), kernel, src);
        } else if (op == "tile") {
            body.allow_only({"tile", "dim", "size"});
            const auto dim = body.at("dim").as_int();
            if (dim < 0) body.at("dim").fail("dim is non-negative");
            if (probe_)
                return classes_.add_tiling_dependent(name, operand(body.at("tile")),
                                                     "a tile step cuts tiles of a fixed size",
                                                     body.where());
            b.add_tile(name, operand(body.at("tile")), static_cast<std::size_t>(dim),
                       body.at("size").as_int(), src);
        } else if (op == "concat") {
            body.allow_only({"concat", "key_dim", "array_dim"});
            const auto kd = body.at("key_dim").as_int(), ad = body.at("array_dim").as_int();
            if (kd < 0) body.at("key_dim").fail("key_dim is non-negative");
            if (ad < 0) body.at("array_dim").fail("array_dim is non-negative");
            if (probe_)
                return classes_.add_tiling_dependent(name, operand(body.at("concat")),
                                                     "a concat joins tiles by key values",
                                                     body.where());
            b.add_concat(name, operand(body.at("concat")), static_cast<std::size_t>(kd),
                         static_cast<std::size_t>(ad), src);
        } else if (op == "softmax" || op == "log_softmax") {
            body.allow_only({op, "dim"});
            if (probe_)
                return classes_.add_softmax(name, operand(body.at(op)), body.at("dim").as_int(),
                                            op == "log_softmax");
            const std::string of = operand(body.at(op));
            const auto dim = body.at("dim").as_int();
            b.add_softmax(
                name, of, dim, op == "log_softmax", src,
                dim < 0 ? std::nullopt : classes_.padded_extent(of, static_cast<std::size_t>(dim)));
        } else {
            body.allow_only({"einsum", "inputs", "join", "agg"});
            EinsumStep step;
            step.spec = body.at("einsum").as_string();
            for (const Field& f : body.at("inputs").elements()) step.inputs.push_back(operand(f));
            if (body.has("join") && body.at("join").is_map()) {
                const Field join = body.at("join");
                join.allow_only({"expr"});
                step.join_expr = parse_expression(join.at("expr"), KernelUse::Join).params().expr;
            } else if (body.has("join")) {
                step.join_op = body.at("join").as_string();
            }
            if (body.has("agg")) step.agg_op = body.at("agg").as_string();
            if (probe_) return classes_.add_einsum(name, step);
            step.followers = classes_.followers(name);
            step.inputs = filled_operands(b, classes_, name, step.inputs, src);
            b.add_einsum(name, step, src);
        }
    }

    // repeat: {times: N, carry: {INPUT: STEP, ...}}
    void set_repeat(ProgramBuilder& b, const Field& f) {
        if (!f.is_map()) f.fail("repeat is a map with times and carry");
        f.allow_only({"times", "carry"});
        std::vector<ProgramBuilder::CarryText> carry;
        if (f.has("carry")) {
            const Field c = f.at("carry");
            if (!c.is_map() && !c.is_null())
                c.fail("carry is a map from an input to the step whose value it takes next");
            if (c.is_map())
                for (const auto& [input, step] : c.entries())
                    carry.push_back({input, step.as_string(), step.where()});
        }
        if (probe_) {
            for (const auto& c : carry) classes_.add_carry(c.input, c.step);
            return;
        }
        if (auto problem = b.try_set_repeat(f.at("times").as_int(), carry, f.at("times").where()))
            throw *problem;
    }

    void add_output(ProgramBuilder& b, const std::string& name, const Field& f) {
        if (probe_) return classes_.add_output(name);
        if (!f.is_map()) f.fail("an output is a map with file (and dataset)");
        f.allow_only({"file", "dataset", "every", "sparse"});
        const bool sparse = f.has("sparse") && f.at("sparse").as_bool();
        const std::string file = resolve(out_folder_, f.at("file").as_string());
        const std::string dataset = f.has("dataset") ? f.at("dataset").as_string() : "/" + name;
        // Checked here, not when running, so that `tra validate` says it too, and before
        // --force is looked at: no flag makes replacing an input safe.
        for (const InputFile& in : input_files_)
            if (storage::same_file(file, in.file))
                f.at("file").fail("output " + name + " would write '" + file +
                                  "', which is the file of input " + in.name + " ('" + in.file +
                                  "', " + in.where.str() +
                                  "); inputs are never modified: write the output to another file");
        if (f.has("every")) {
            if (auto problem = b.try_add_observed_output(
                    name, file, dataset, f.at("every").as_int(), source_of(f), sparse))
                throw *problem;
            return;
        }
        b.add_output(name, file, dataset, source_of(f), sparse);
    }

    struct InputFile {
        std::string name, file;
        SourceLocation where;
    };

    std::vector<InputFile> input_files_;
    bool probe_ = false;     // the first pass of a workflow with tile: auto (load)
    TilingClasses classes_;  // what that pass found
    TilingSpace space_;
    Tiling tiling_;                       // the tiles the auto inputs are built with
    std::vector<SourceLocation> slices_;  // inputs' `slice:` fields
    std::string path_;
    LoadOptions options_;
    std::string folder_, out_folder_;
};

}  // namespace

Program load_workflow(const std::string& path, const LoadOptions& options) {
    return WorkflowLoader(path, options).load();
}

std::function<Program(const Tiling&)> program_of_tiling(const std::string& path,
                                                        const LoadOptions& options) {
    return [path, options](const Tiling& tiling) {
        LoadOptions with = options;
        with.tiling = tiling;
        return load_workflow(path, with);
    };
}

}  // namespace tra::workflow
