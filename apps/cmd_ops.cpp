// tonekit ops: every operator from the registry with its citation, equations, parameters,
// defaults and ranges (or one operator, or just the ids for scripts).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli_common.hpp"

namespace tonekit::cli {
namespace {

struct OpsOptions {
  std::string id;
  bool ids_only = false;
};

int run_ops(const OpsOptions& o) {
  if (o.ids_only) {
    for (const OperatorDesc* op : all_operators()) std::printf("%s\n", op->id);
    return kExitOk;
  }
  if (!o.id.empty()) {
    const OperatorDesc* op = find_operator(o.id);
    if (!op) return report(prepare_params(o.id).status());  // the registry's "unknown operator" message
    std::printf("%s\n%s", operator_details(*op).c_str(), common_params_details().c_str());
    return kExitOk;
  }
  for (const OperatorDesc* op : all_operators()) std::printf("%s\n", operator_details(*op).c_str());
  std::printf("%s", common_params_details().c_str());
  return kExitOk;
}

}  // namespace

void add_ops_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<OpsOptions>();
  CLI::App* cmd = app.add_subcommand("ops", "List the tone-mapping operators and their parameters");
  cmd->add_option("id", o->id, "show only this operator");
  cmd->add_flag("--ids", o->ids_only, "print only the operator ids, one a line");
  cmd->callback([o, &exit_code] { exit_code = run_ops(*o); });
}

}  // namespace tonekit::cli
