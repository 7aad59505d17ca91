// Reading machine profiles (docs/machine-profile.md). A profile decides which plan the time
// model ranks first, and a hand edit that slips through (a rate of 0, sizes out of order that
// break the interpolation) would rank silently wrong, so every field is checked here.
#include "workflow/machine_profile_file.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/content_hash.hpp"
#include "core/error.hpp"
#include "workflow/yaml_fields.hpp"

namespace tra::workflow {

namespace {

// A rate, time or byte count the model divides by or multiplies with: positive and finite.
double positive(const Field& f) {
    const double v = f.as_double();
    if (!std::isfinite(v) || v <= 0)
        f.fail("must be a positive finite number, got " + f.as_string());
    return v;
}

int count_at_least_one(const Field& f) {
    const std::int64_t v = f.as_int();
    if (v < 1 || v > 1 << 30) f.fail("must be a whole number from 1, got " + f.as_string());
    return static_cast<int>(v);
}

// A rate per measured whole number `key` (a gemm size, a lane count):
// [{KEY: N, flops_per_second: R}, ...], at least one, N ascending and distinct (the model
// interpolates between neighbours, so they must come in order). `what` names N in messages.
std::vector<std::pair<std::int64_t, double>> read_rates_by(const Field& f, const std::string& key,
                                                           const std::string& what) {
    const std::vector<Field> entries = f.elements();
    if (entries.empty()) f.fail("needs at least one measured " + what);
    std::vector<std::pair<std::int64_t, double>> out;
    for (const Field& e : entries) {
        if (!e.is_map()) e.fail("expected {" + key + ": N, flops_per_second: R}");
        e.allow_only({key, "flops_per_second"});
        const Field at = e.at(key);
        const std::int64_t n = at.as_int();
        if (n < 1) at.fail("must be a positive whole number, got " + at.as_string());
        if (!out.empty() && n <= out.back().first)
            at.fail(what + "s must be ascending and distinct: " + std::to_string(n) + " follows " +
                    std::to_string(out.back().first));
        out.emplace_back(n, positive(e.at("flops_per_second")));
    }
    return out;
}

std::vector<ia::GemmRate> read_gemm(const Field& f) {
    std::vector<ia::GemmRate> out;
    for (const auto& [size, rate] : read_rates_by(f, "size", "size")) out.push_back({size, rate});
    return out;
}

std::vector<ia::LanesRate> read_lanes_by_count(const Field& f) {
    std::vector<ia::LanesRate> out;
    for (const auto& [lanes, rate] : read_rates_by(f, "lanes", "lane count"))
        out.push_back({lanes, rate});
    return out;
}

// [{m: M, n: N, k: K, flops_per_second: R}, ...], ascending and distinct (ia::GemmShapeRates).
ia::GemmShapeRates read_gemm_shapes(const Field& f) {
    const std::vector<Field> entries = f.elements();
    std::vector<ia::GemmShapeRate> points;
    for (const Field& e : entries) {
        if (!e.is_map()) e.fail("expected {m: M, n: N, k: K, flops_per_second: R}");
        e.allow_only({"m", "n", "k", "flops_per_second"});
        auto side = [&](const char* name) {
            const Field at = e.at(name);
            const std::int64_t v = at.as_int();
            if (v < 1 || v > std::int64_t{1} << 40)
                at.fail("must be a positive whole number, got " + at.as_string());
            return v;
        };
        points.push_back({side("m"), side("n"), side("k"), positive(e.at("flops_per_second"))});
    }
    if (const auto problem = ia::GemmShapeRates::problem(points))
        entries[problem->point].fail(problem->what);
    return ia::GemmShapeRates(std::move(points));
}

// `fallback`: the built-in default's rates of this dtype, for fields added after the first
// profiles were written.
ia::DtypeRates read_dtype(const Field& f, const ia::DtypeRates& fallback) {
    if (!f.is_map()) f.fail("expected {gemm: [...], loop_flops_per_second: R}");
    f.allow_only({"gemm", "gemm_operand_excess_bytes_per_second",
                  "gemm_result_excess_bytes_per_second", "loop_flops_per_second",
                  "lanes_flops_per_second", "lanes_by_count", "gemm_shapes"});
    ia::DtypeRates r;
    r.gemm = read_gemm(f.at("gemm"));
    auto optional_rate = [&](const char* name, double absent) {
        return f.has(name) ? positive(f.at(name)) : absent;
    };
    r.gemm_operand_excess_bytes_per_second = optional_rate(
        "gemm_operand_excess_bytes_per_second", fallback.gemm_operand_excess_bytes_per_second);
    r.gemm_result_excess_bytes_per_second = optional_rate(
        "gemm_result_excess_bytes_per_second", fallback.gemm_result_excess_bytes_per_second);
    r.loop_flops_per_second = positive(f.at("loop_flops_per_second"));
    // Absent: not measured (0), whatever the built-in has.
    r.lanes_flops_per_second = optional_rate("lanes_flops_per_second", 0);
    if (f.has("lanes_by_count")) r.lanes_by_count = read_lanes_by_count(f.at("lanes_by_count"));
    if (f.has("gemm_shapes")) r.gemm_shapes = read_gemm_shapes(f.at("gemm_shapes"));
    return r;
}

// `unmeasured`, or {latency_seconds, bytes_per_second[, duplex_bytes_per_second]}.
ia::LinkRates read_link(const Field& f, const ia::LinkRates& fallback) {
    if (f.is_scalar()) {
        if (f.as_string() != "unmeasured")
            f.fail("expected 'unmeasured' or {latency_seconds: S, bytes_per_second: R}, got '" +
                   f.as_string() + "'");
        ia::LinkRates unmeasured = fallback;
        unmeasured.measured = false;
        return unmeasured;
    }
    if (!f.is_map()) f.fail("expected 'unmeasured' or {latency_seconds: S, bytes_per_second: R}");
    f.allow_only({"latency_seconds", "bytes_per_second", "duplex_bytes_per_second"});
    // Absent duplex rate (profiles before it): both directions at the one-way rate.
    return {true, positive(f.at("latency_seconds")), positive(f.at("bytes_per_second")),
            f.has("duplex_bytes_per_second") ? positive(f.at("duplex_bytes_per_second")) : 0};
}

}  // namespace

ia::MachineProfile read_machine_profile_text(const std::string& text, const std::string& source) {
    const Field root(parse_yaml(text, source), source, "");
    if (!root.is_map())
        root.fail("a machine profile is a map starting with 'format: " +
                  std::string(kMachineProfileFormat) + "'");
    root.allow_only({"format", "name", "blas", "ranks", "dtypes", "memory_bytes_per_second",
                     "kernel_call_seconds", "first_touch_bytes_per_second", "links",
                     "permute_bytes_per_second", "operator_seconds", "exchange_seconds",
                     "message_seconds", "einsum_call_seconds"});
    const Field format = root.at("format");
    if (format.as_string() != kMachineProfileFormat)
        format.fail("unsupported format '" + format.as_string() + "' (expected " +
                    kMachineProfileFormat + ")");

    ia::MachineProfile p;
    p.name = root.at("name").as_string();
    const Field blas = root.at("blas");
    if (!blas.is_map()) blas.fail("expected {core: NAME, threads: N}");
    blas.allow_only({"core", "threads"});
    const Field core = blas.at("core");
    p.blas_core = core.is_null() ? "" : core.as_string();
    p.blas_threads = count_at_least_one(blas.at("threads"));
    p.ranks = count_at_least_one(root.at("ranks"));

    const Field dtypes = root.at("dtypes");
    if (!dtypes.is_map()) dtypes.fail("expected {f32: {...}, f64: {...}}");
    dtypes.allow_only({"f32", "f64"});
    const ia::MachineProfile& builtin = ia::default_machine_profile();
    p.f32 = read_dtype(dtypes.at("f32"), builtin.f32);
    p.f64 = read_dtype(dtypes.at("f64"), builtin.f64);
    p.memory_bytes_per_second = positive(root.at("memory_bytes_per_second"));
    p.kernel_call_seconds = positive(root.at("kernel_call_seconds"));
    // Added after the first profiles were written: optional, the built-in's where absent.
    p.permute_bytes_per_second = root.has("permute_bytes_per_second")
                                     ? positive(root.at("permute_bytes_per_second"))
                                     : 0;  // not measured: the memory rate
    p.operator_seconds =
        root.has("operator_seconds") ? positive(root.at("operator_seconds")) : 0;  // not charged
    p.exchange_seconds =  // not measured: operator_seconds
        root.has("exchange_seconds") ? positive(root.at("exchange_seconds")) : 0;
    p.einsum_call_seconds =  // not measured: kernel_call_seconds
        root.has("einsum_call_seconds") ? positive(root.at("einsum_call_seconds")) : 0;
    p.message_seconds =  // not measured: not charged
        root.has("message_seconds") ? positive(root.at("message_seconds")) : 0;
    p.first_touch_bytes_per_second = root.has("first_touch_bytes_per_second")
                                         ? positive(root.at("first_touch_bytes_per_second"))
                                         : builtin.first_touch_bytes_per_second;

    const Field links = root.at("links");
    if (!links.is_map()) links.fail("expected {same_host: ..., across_hosts: ...}");
    links.allow_only({"same_host", "across_hosts"});
    p.same_host = read_link(links.at("same_host"), builtin.same_host);
    p.across_hosts = read_link(links.at("across_hosts"), builtin.across_hosts);

    p.source = source;
    p.content_hash = content_hash(text);
    return p;
}

ia::MachineProfile load_machine_profile(const std::string& path) {
    // A folder opens as a stream but its first read throws std::ios_base::failure (EISDIR).
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored))
        throw Error("cannot read machine profile '" + path + "': it is a folder");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read machine profile '" + path + "'");
    std::stringstream text;
    text << in.rdbuf();
    // The hash of the text read equals file_content_hash(path): both hash the exact bytes.
    return read_machine_profile_text(text.str(), path);
}

}  // namespace tra::workflow
