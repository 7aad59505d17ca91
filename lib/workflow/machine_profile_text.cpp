// Writing machine profiles: one canonical text per profile, so the built-in default has a stable
// content hash and a profile written, read and written again is byte-identical.
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "core/content_hash.hpp"
#include "workflow/machine_profile_file.hpp"

namespace tra::workflow {

namespace {

// 6 significant digits: enough for measured rates (they vary by more between runs), short
// enough to read, and printf of the value read back gives the same digits. A mantissa without a
// point gets ".0" ("5.0e+09"): YAML 1.1 readers (PyYAML) take "5e+09" for a string.
std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    std::string s = text;
    const auto e = s.find('e');
    if (e != std::string::npos && s.find('.') == std::string::npos) s.insert(e, ".0");
    return s;
}

// Names are free text (--name, a host name): a double-quoted scalar is safe for any of them.
std::string quoted(const std::string& s) {
    YAML::Emitter e;
    e << YAML::DoubleQuoted << s;
    return e.c_str();
}

std::string dtype_text(const ia::DtypeRates& r) {
    std::string s = "\n    gemm:";
    for (const ia::GemmRate& g : r.gemm)
        s += "\n      - {size: " + std::to_string(g.size) +
             ", flops_per_second: " + number(g.flops_per_second) + "}";
    if (!r.gemm_shapes.empty()) {  // only where measured (`calibrate --for`)
        s += "\n    gemm_shapes:";
        for (const ia::GemmShapeRate& g : r.gemm_shapes.points())
            s += "\n      - {m: " + std::to_string(g.m) + ", n: " + std::to_string(g.n) +
                 ", k: " + std::to_string(g.k) +
                 ", flops_per_second: " + number(g.flops_per_second) + "}";
    }
    s += "\n    gemm_operand_excess_bytes_per_second: " +
         number(r.gemm_operand_excess_bytes_per_second);
    s += "\n    gemm_result_excess_bytes_per_second: " +
         number(r.gemm_result_excess_bytes_per_second);
    s += "\n    loop_flops_per_second: " + number(r.loop_flops_per_second);
    // Only where measured: profiles without it (the built-in's text, and so its hash) unchanged.
    if (r.lanes_flops_per_second > 0)
        s += "\n    lanes_flops_per_second: " + number(r.lanes_flops_per_second);
    if (!r.lanes_by_count.empty()) {
        s += "\n    lanes_by_count:";
        for (const ia::LanesRate& l : r.lanes_by_count)
            s += "\n      - {lanes: " + std::to_string(l.lanes) +
                 ", flops_per_second: " + number(l.flops_per_second) + "}";
    }
    return s;
}

std::string link_text(const ia::LinkRates& l) {
    if (!l.measured) return "unmeasured";
    return "{latency_seconds: " + number(l.latency_seconds) +
           ", bytes_per_second: " + number(l.bytes_per_second) +
           (l.duplex_bytes_per_second > 0
                ? ", duplex_bytes_per_second: " + number(l.duplex_bytes_per_second)
                : std::string()) +
           "}";
}

}  // namespace

std::string machine_profile_yaml(const ia::MachineProfile& p) {
    std::ostringstream out;
    out << "# A tra machine profile (docs/machine-profile.md), written by `tra calibrate`: what\n"
           "# one rank achieves while every rank runs alike, for the time model that ranks plans.\n"
           "# Rates are per second, gemm sizes are m = n = k; hand edits are checked on load.\n"
        << "format: " << kMachineProfileFormat << "\n"
        << "name: " << quoted(p.name) << "\n"
        << "blas: {core: " << quoted(p.blas_core) << ", threads: " << p.blas_threads << "}\n"
        << "ranks: " << p.ranks << "\n"
        << "dtypes:\n"
        << "  f64:" << dtype_text(p.f64) << "\n"
        << "  f32:" << dtype_text(p.f32) << "\n"
        << "memory_bytes_per_second: " << number(p.memory_bytes_per_second) << "\n";
    // Only where measured, as the lanes rate.
    if (p.permute_bytes_per_second > 0)
        out << "permute_bytes_per_second: " << number(p.permute_bytes_per_second) << "\n";
    out << "kernel_call_seconds: " << number(p.kernel_call_seconds) << "\n";
    if (p.einsum_call_seconds > 0)
        out << "einsum_call_seconds: " << number(p.einsum_call_seconds) << "\n";
    if (p.operator_seconds > 0) out << "operator_seconds: " << number(p.operator_seconds) << "\n";
    if (p.exchange_seconds > 0) out << "exchange_seconds: " << number(p.exchange_seconds) << "\n";
    if (p.message_seconds > 0) out << "message_seconds: " << number(p.message_seconds) << "\n";
    out << "first_touch_bytes_per_second: " << number(p.first_touch_bytes_per_second) << "\n"
        << "links:\n"
        << "  same_host: " << link_text(p.same_host) << "\n"
        << "  across_hosts: " << link_text(p.across_hosts) << "\n";
    return out.str();
}

ia::MachineProfile builtin_machine_profile() {
    ia::MachineProfile p = ia::default_machine_profile();
    p.content_hash = content_hash(machine_profile_yaml(p));
    return p;
}

}  // namespace tra::workflow
