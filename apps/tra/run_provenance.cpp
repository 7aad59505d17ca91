#include "run_provenance.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <variant>

#include "core/content_hash.hpp"
#include "core/error.hpp"

namespace tra::cli {

namespace {

std::vector<std::string>& remembered() {
    static std::vector<std::string> argv;
    return argv;
}

// "2026-11-27T03:26:25.123456789Z": the exact time (mtime_ns) for people.
std::string utc_text(std::int64_t ns) {
    const std::time_t seconds = static_cast<std::time_t>(ns / 1000000000);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char day[32], text[48];
    std::strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    std::snprintf(text, sizeof text, "%s.%09lldZ", day, static_cast<long long>(ns % 1000000000));
    return text;
}

InputFileRecord examine(const std::string& input, const InputSource& src) {
    InputFileRecord r;
    r.input = input;
    r.path = std::filesystem::absolute(src.file).lexically_normal().string();
    r.dataset = src.dataset;
    struct stat st {};
    if (::stat(src.file.c_str(), &st) != 0)
        throw Error("cannot examine input file " + src.file +
                    " for the report's provenance: " + std::strerror(errno));
    r.size_bytes = static_cast<std::int64_t>(st.st_size);
    r.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return r;
}

}  // namespace

void remember_command_line(int argc, const char* const* argv) {
    remembered().assign(argv, argv + argc);
}

Provenance collect_provenance(const RunOptions& opt, const Prepared& prep,
                              const runtime::HostLayout& hosts, int blas_threads) {
    Provenance p;
    p.versions = version_info();
    p.plan_name = prep.name;
    p.plan_file = opt.workflow;
    p.plan_hash = prep.plan_hash;
    p.profile_name = prep.profile.name;
    p.profile_source = prep.profile.source;
    p.profile_hash = prep.profile.content_hash;
    std::map<std::string, std::string> hashed;  // by path: a file several inputs share
    const Program& program = *prep.program;
    for (NodeId id : program.input_nodes()) {
        const Node& n = program.node(id);
        const InputSource& src = std::get<InputOp>(n.op).source;
        if (src.generate) continue;  // made from the workflow, which the plan hash covers
        InputFileRecord r = examine(n.name, src);
        if (opt.hash_inputs) {
            auto [it, fresh] = hashed.try_emplace(r.path);
            if (fresh) it->second = file_content_hash(src.file);
            r.content_hash = it->second;
        }
        p.inputs.push_back(std::move(r));
    }
    p.command_line = remembered();
    p.ranks = 0;
    for (const runtime::Host& h : hosts.hosts) p.ranks += static_cast<int>(h.ranks.size());
    p.blas_threads = blas_threads;
    p.hosts = hosts.hosts;
    return p;
}

void write_provenance_json(JsonWriter& j, const Provenance& p) {
    j.begin_object();
    j.field("tra_version", p.versions.tra).field("git_commit", p.versions.commit);
    j.field("blas", p.versions.blas).field("mpi", p.versions.mpi).field("hdf5", p.versions.hdf5);
    if (!p.versions.cuda.empty()) j.field("cuda", p.versions.cuda);
    j.key("plan").begin_object();
    j.field("name", p.plan_name).field("file", p.plan_file).field("content_hash", p.plan_hash);
    j.end_object();
    j.key("machine_profile").begin_object();
    j.field("name", p.profile_name).field("source", p.profile_source);
    j.field("content_hash", p.profile_hash);
    j.end_object();
    j.key("inputs").begin_array();
    for (const InputFileRecord& r : p.inputs) {
        j.begin_object();
        j.field("input", r.input).field("path", r.path).field("dataset", r.dataset);
        j.field("size_bytes", r.size_bytes).field("mtime_ns", r.mtime_ns);
        j.field("mtime", utc_text(r.mtime_ns));
        if (!r.content_hash.empty()) j.field("content_hash", r.content_hash);
        j.end_object();
    }
    j.end_array();
    j.field("command_line", p.command_line);
    j.key("layout").begin_object();
    j.field("ranks", p.ranks).field("blas_threads_per_rank", p.blas_threads);
    j.key("hosts").begin_array();
    for (const runtime::Host& h : p.hosts) {
        j.begin_object();
        j.field("name", h.name).field("ranks", h.ranks);
        j.field("ranks_on_host", h.ranks.size()).field("cores", h.cores);
        j.end_object();
    }
    j.end_array();
    j.end_object();
    j.end_object();
}

}  // namespace tra::cli
