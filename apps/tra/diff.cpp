#include <iostream>

#include "runtime/tensor_diff.hpp"
#include "storage/tensor_file.hpp"
#include "verbs.hpp"

namespace tra::cli {

namespace {

struct DiffOptions {
    std::string a, b;
    double rtol = -1, atol = -1;
};

// "file.h5:/ds" or "file.h5" (then the file must hold exactly one dataset).
std::pair<std::string, std::string> split_target(const std::string& arg) {
    const auto colon = arg.rfind(":/");
    if (colon != std::string::npos) return {arg.substr(0, colon), arg.substr(colon + 1)};
    const auto names = storage::list_datasets(arg);
    if (names.size() != 1) {
        std::string all;
        for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
        throw Error("'" + arg + "' holds " + std::to_string(names.size()) +
                    " datasets; name one as FILE:/DATASET (it has: " + all + ")");
    }
    return {arg, names.front()};
}

int diff(const DiffOptions& opt) {
    const auto [fa, da] = split_target(opt.a);
    const auto [fb, db] = split_target(opt.b);
    const auto ta = storage::DatasetReader(fa, da).info().dtype;
    const auto tb = storage::DatasetReader(fb, db).info().dtype;
    auto tol = runtime::Tolerance::for_dtypes(ta, tb);
    if (opt.rtol >= 0) tol.rtol = opt.rtol;
    if (opt.atol >= 0) tol.atol = opt.atol;
    const auto r = runtime::diff_datasets(fa, da, fb, db, tol);
    if (!r.shapes_match) {
        std::cout << "differ: shapes " << r.shape_a.str() << " and " << r.shape_b.str() << "\n";
        return 1;
    }
    std::cout << (r.equal() ? "equal" : "differ") << ": " << r.mismatches << " of " << r.elements
              << " elements outside rtol=" << tol.rtol << " atol=" << tol.atol << "; max abs diff "
              << r.max_abs << ", max rel diff " << r.max_rel << "\n";
    if (r.first_mismatch)
        std::cout << "first difference at " << r.first_mismatch->str() << ": " << r.first_a
                  << " vs " << r.first_b << "\n";
    return r.equal() ? 0 : 1;
}

}  // namespace

void add_diff(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "diff",
        "Compare two HDF5 tensors element-wise (|x-y| <= atol + rtol*|y|); exit 1 if "
        "they differ. Defaults: f64 rtol 1e-9 atol 1e-12, f32 rtol 1e-4 atol 1e-5");
    auto opt = std::make_shared<DiffOptions>();
    cmd->add_option("x", opt->a, "FILE.h5[:/DATASET]")->required();
    cmd->add_option("y", opt->b, "FILE.h5[:/DATASET] (the reference)")->required();
    cmd->add_option("--rtol", opt->rtol, "Relative tolerance");
    cmd->add_option("--atol", opt->atol, "Absolute tolerance");
    cmd->callback([opt, &exit_code] { exit_code = diff(*opt); });
}

}  // namespace tra::cli
