#include "scheduler/slurm_cli.h"

#include <utility>

#include "config/secret_mask.h"
#include "scheduler/slurm_text.h"

namespace ufmr {

namespace {

bool Mentions(const std::string& text, const char* what) {
  return text.find(what) != std::string::npos;
}

// What a failed Slurm command's error says, as a Status.
Status Failure(const std::string& program, const CommandOutput& out, const std::string& node) {
  std::string said = out.err.empty() ? out.out : out.err;
  while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
  said = SecretMask::Global().Excerpt(said, 300);  // masked before it is cut
  std::string what = program + " exited " + std::to_string(out.exit_code) + ": " + said;
  if (Mentions(said, "Invalid node name")) {
    return Status::NotFound("Slurm does not know node " + node + " (" + what + ")");
  }
  // A refusal: the request is wrong as it stands, and asking again will not change that.
  if (Mentions(said, "Invalid node state") || Mentions(said, "Access/permission denied") ||
      Mentions(said, "Invalid user")) {
    return Status::InvalidArgument(what);
  }
  // Anything else (the controller unreachable or busy, a timeout): try again later.
  return Status::Unavailable(what);
}

}  // namespace

SlurmCli::SlurmCli(SlurmCliOptions options) : options_(std::move(options)) {
  command_.timeout_s = options_.timeout_s;
  if (!options_.slurm_conf.empty()) command_.env.emplace_back("SLURM_CONF", options_.slurm_conf);
}

Result<std::string> SlurmCli::Run(const std::string& program, const std::vector<std::string>& args,
                                  const std::string& node) {
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), options_.extra_args.begin(), options_.extra_args.end());
  argv.insert(argv.end(), args.begin(), args.end());
  auto out = RunProgram(argv, command_);
  if (!out.ok()) return out.status();
  if (out->exit_code != 0) return Failure(program, out.value(), node);
  return std::move(out->out);
}

Result<SchedulerNode> SlurmCli::Node(const std::string& name) {
  auto text = Run(options_.sinfo, {"-h", "-N", "-n", name, "-O", slurm_text::kNodeFormat}, name);
  if (!text.ok()) return text.status();
  auto nodes = slurm_text::ParseNodes(text.value());
  if (!nodes.ok()) return Status::Unavailable(nodes.status().message());
  for (auto& n : nodes.value()) {
    if (n.name == name) return std::move(n);
  }
  return Status::NotFound("Slurm does not know node " + name);
}

Status SlurmCli::Drain(const std::string& name, const std::string& reason) {
  auto done = Run(options_.scontrol,
                  {"update", "NodeName=" + name, "State=DRAIN", "Reason=" + reason}, name);
  return done.ok() ? Status::Ok() : done.status();
}

Status SlurmCli::Resume(const std::string& name) {
  auto done = Run(options_.scontrol, {"update", "NodeName=" + name, "State=RESUME"}, name);
  return done.ok() ? Status::Ok() : done.status();
}

Result<std::vector<SchedulerJob>> SlurmCli::Jobs(const std::string& node) {
  auto text = Run(options_.squeue, {"-h", "-w", node, "-o", slurm_text::kJobFormat}, node);
  if (!text.ok()) return text.status();
  auto jobs = slurm_text::ParseJobs(text.value());
  if (!jobs.ok()) return Status::Unavailable(jobs.status().message());
  return jobs;
}

Result<int> SlurmCli::NodeCount() {
  auto text = Run(options_.sinfo, {"-h", "-N", "-O", slurm_text::kNodeFormat}, "");
  if (!text.ok()) return text.status();
  auto nodes = slurm_text::ParseNodes(text.value());
  if (!nodes.ok()) return Status::Unavailable(nodes.status().message());
  return static_cast<int>(nodes->size());
}

}  // namespace ufmr
