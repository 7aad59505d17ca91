#include "runtime/fault_injection.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <regex>
#include <thread>

#include "core/error.hpp"

namespace tra::runtime {

FaultInjection FaultInjection::from_environment() {
    FaultInjection f;
    const char* text = std::getenv("TRA_FAULT");
    if (!text || !*text) return f;
    static const std::regex form(
        R"((error|kill|hang|corrupt)@([0-9]+):([0-9]+|[a-z_]+)(#([0-9]+))?)");
    std::cmatch m;
    if (!std::regex_match(text, m, form))
        throw Error(
            "TRA_FAULT='" + std::string(text) +
            "' is not ACTION@RANK:OPERATOR[#ITERATION] (ACTION error, kill, hang or corrupt, "
            "OPERATOR an id or op name, ITERATION of a loop from 1)");
    const Action action = m[1] == "kill"      ? Action::Kill
                          : m[1] == "hang"    ? Action::Hang
                          : m[1] == "corrupt" ? Action::Corrupt
                                              : Action::Error;
    Fault fault{action, std::stoi(m[2]), std::nullopt, "", 1};
    if (m[5].matched) fault.iteration = std::stoll(m[5]);
    const std::string where = m[3];
    if (where.find_first_not_of("0123456789") == std::string::npos)
        fault.node_id = std::stoll(where);
    else
        fault.op_name = where;
    f.fault_ = fault;
    return f;
}

bool FaultInjection::matches(int rank, std::int64_t node_id, const std::string& op_name) const {
    if (!fault_ || fault_->rank != rank || fault_->iteration != iteration_) return false;
    return fault_->node_id ? *fault_->node_id == node_id : fault_->op_name == op_name;
}

void FaultInjection::corrupt(int rank, std::int64_t node_id, const std::string& op_name,
                             HeldTuples& out) {
    if (!matches(rank, node_id, op_name) || fault_->action != Action::Corrupt) return;
    fault_.reset();
    Tile* t = nullptr;
    if (!out.tuples.empty())
        t = &out.tuples.begin()->second;
    else if (!out.partials.empty() && !out.partials.begin()->second.empty())
        t = &out.partials.begin()->second.begin()->second;
    if (!t || t->elements() == 0)
        throw Error("TRA_FAULT corrupt: rank " + std::to_string(rank) +
                        " produces no tile of operator #" + std::to_string(node_id) + " " +
                        op_name + " to corrupt (choose another rank)",
                    {}, ErrorKind::Failed);
    Tile host = t->to(Residence::Host);
    const double x = host.get(0);
    host.set(0, -x - (x < 0 ? -1.0 : 1.0));  // differs from x by 2|x| + 1
    *t = t->on_device() ? host.to(Residence::Device) : std::move(host);
}

void FaultInjection::reach(int rank, std::int64_t node_id, const std::string& op_name) {
    if (!matches(rank, node_id, op_name) || fault_->action == Action::Corrupt) return;
    const Action action = fault_->action;
    fault_.reset();
    if (action == Action::Kill) std::raise(SIGKILL);
    // Never returns: only another rank's watchdog (or the launcher) ends this one.
    while (action == Action::Hang) std::this_thread::sleep_for(std::chrono::seconds(1));
    throw Error(
        "injected fault (TRA_FAULT) at operator #" + std::to_string(node_id) + " " + op_name, {},
        ErrorKind::Failed);
}

}  // namespace tra::runtime
