#include "tuner/cli/auth_commands.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "auth/roles.h"
#include "common/status_macros.h"
#include "text/control_chars.h"
#include "tuner/cli/output_format.h"
#include "tuner/cli/table_printer.h"
#include "tuner/cli/time_format.h"

namespace vernier::cli {

absl::StatusOr<absl::Duration> ParseExpiry(const std::string& text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower.empty() || lower == "0" || lower == "never") return absl::ZeroDuration();
  const char unit = lower.back();
  int64_t count = 0;
  const bool parsed = absl::SimpleAtoi(lower.substr(0, lower.size() - 1), &count) && count > 0;
  absl::Duration per;
  switch (unit) {
    case 's':
      per = absl::Seconds(1);
      break;
    case 'm':
      per = absl::Minutes(1);
      break;
    case 'h':
      per = absl::Hours(1);
      break;
    case 'd':
      per = absl::Hours(24);
      break;
    default:
      per = absl::ZeroDuration();
  }
  if (!parsed || per == absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--expires \"", text,
        "\": give a positive whole number with s, m, h or d (e.g. 30d, 12h), or 0 for never"));
  }
  return per * count;
}

std::string FormatGrants(const google::protobuf::RepeatedPtrField<v1::AccessGrant>& grants) {
  if (grants.empty()) return "-";
  return absl::StrJoin(grants, ", ", [](std::string* out, const v1::AccessGrant& grant) {
    absl::StrAppend(out, grant.user(), " (", auth::RoleName(grant.role()), ")");
  });
}

absl::Status AuthCommands::PrintJson(const google::protobuf::Message& message) {
  VERNIER_ASSIGN_OR_RETURN(const std::string json, ToJson(message, JsonLayout::kIndented));
  *context_.out << json << '\n';
  return absl::OkStatus();
}

absl::Status AuthCommands::CreateToken(const std::string& user, const std::string& role,
                                       const std::string& expires) {
  VERNIER_ASSIGN_OR_RETURN(const v1::Role parsed_role, auth::ParseUserRole(role, "--role"));
  VERNIER_ASSIGN_OR_RETURN(const absl::Duration expires_in, ParseExpiry(expires));
  v1::CreateTokenRequest request;
  request.set_user(user);
  request.set_role(parsed_role);
  request.set_expires_in_seconds(absl::ToInt64Seconds(expires_in));
  VERNIER_ASSIGN_OR_RETURN(const v1::CreateTokenResponse created, client_->CreateToken(request));
  if (context_.format == OutputFormat::kJson) return PrintJson(created);
  *context_.out << created.token() << "\n\n"
                << "Token " << created.info().id() << " for " << created.info().user() << " ("
                << auth::RoleName(created.info().role()) << "), expires "
                << (created.info().has_expire_time()
                        ? FormatTimestamp(created.info().expire_time(), context_.time_zone)
                        : std::string("never"))
                << ".\nIt is shown only now; the server keeps only its hash. Give it to "
                << created.info().user()
                << " to put in a file only they can read (chmod 600) and use with\n"
                   "VERNIER_TOKEN_FILE=FILE or --token-file FILE.\n";
  return absl::OkStatus();
}

absl::Status AuthCommands::ListTokens(bool include_inactive) {
  VERNIER_ASSIGN_OR_RETURN(const v1::ListTokensResponse listed,
                           client_->ListTokens(include_inactive));
  if (context_.format == OutputFormat::kJson) return PrintJson(listed);
  TablePrinter table({"ID", "USER", "ROLE", "CREATED", "EXPIRES", "LAST USED", "REVOKED"});
  for (const v1::ApiToken& token : listed.tokens()) {
    table.AddRow({token.id(), token.user(), auth::RoleName(token.role()),
                  FormatTimestamp(token.create_time(), context_.time_zone),
                  token.has_expire_time() ? FormatTimestamp(token.expire_time(), context_.time_zone)
                                          : "never",
                  FormatTimestamp(token.last_use_time(), context_.time_zone),
                  FormatTimestamp(token.revoke_time(), context_.time_zone)});
  }
  table.Print(*context_.out);
  return absl::OkStatus();
}

absl::StatusOr<absl::Time> ParseSince(const std::string& text, absl::Time now) {
  absl::Time time;
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, text, &time, &error)) return time;
  absl::StatusOr<absl::Duration> ago = ParseExpiry(text);
  if (ago.ok() && *ago > absl::ZeroDuration()) return now - *ago;
  return absl::InvalidArgumentError(absl::StrCat(
      "--since \"", text,
      "\": give an RFC 3339 time (2026-11-26T03:00:00Z) or how long ago (90m, 2h, 7d)"));
}

absl::Status AuthCommands::ListAudit(const std::string& user, const std::string& resource,
                                     const std::string& since, int limit) {
  v1::ListAuditEntriesRequest request;
  request.set_user(user);
  request.set_resource(resource);
  request.set_limit(limit);
  if (!since.empty()) {
    VERNIER_ASSIGN_OR_RETURN(const absl::Time from, ParseSince(since, context_.now()));
    const int64_t micros = absl::ToUnixMicros(from);
    request.mutable_since()->set_seconds(micros / 1000000);
    request.mutable_since()->set_nanos(static_cast<int32_t>(micros % 1000000) * 1000);
  }
  VERNIER_ASSIGN_OR_RETURN(const v1::ListAuditEntriesResponse listed,
                           client_->ListAuditEntries(request));
  if (context_.format == OutputFormat::kJson) return PrintJson(listed);
  TablePrinter table({"SEQ", "TIME", "USER", "ROLE", "METHOD", "RESOURCE", "CODE", "PEER"});
  for (const v1::AuditEntry& entry : listed.entries()) {
    table.AddRow({absl::StrCat(entry.sequence()), FormatTimestamp(entry.time(), context_.time_zone),
                  entry.user().empty() ? "-" : entry.user(),
                  entry.role() == v1::ROLE_UNSPECIFIED ? "-" : auth::RoleName(entry.role()),
                  entry.method(), entry.resource().empty() ? "-" : entry.resource(),
                  absl::StatusCodeToString(static_cast<absl::StatusCode>(entry.code())),
                  entry.peer()});
  }
  table.Print(*context_.out);
  return absl::OkStatus();
}

absl::Status AuthCommands::VerifyAudit(const std::string& head_hash) {
  VERNIER_ASSIGN_OR_RETURN(const v1::VerifyAuditLogResponse verified,
                           client_->VerifyAuditLog(head_hash));
  if (context_.format == OutputFormat::kJson) VERNIER_RETURN_IF_ERROR(PrintJson(verified));
  if (!verified.intact()) {
    return absl::DataLossError(absl::StrCat("the audit log is not intact: ", verified.problem()));
  }
  if (context_.format != OutputFormat::kJson) {
    *context_.out << "The audit log is intact: " << verified.entry_count() << " entries";
    if (verified.entry_count() > 0) {
      *context_.out << "; the newest is " << verified.head_sequence() << " with hash "
                    << verified.head_hash()
                    << " (note it where the server cannot write, and pass it as --head to a later "
                       "run: that run fails if rows up to it were removed or changed)";
    }
    if (verified.noted_head_sequence() > 0) {
      *context_.out << "; it still holds the head noted before (row "
                    << verified.noted_head_sequence() << ")";
    }
    *context_.out << ".\n";
  }
  return absl::OkStatus();
}

absl::Status AuthCommands::RevokeToken(const std::string& token_id) {
  VERNIER_ASSIGN_OR_RETURN(const v1::ApiToken revoked, client_->RevokeToken(token_id));
  if (context_.format == OutputFormat::kJson) return PrintJson(revoked);
  *context_.out << "Revoked token " << text::ControlChars::ForTerminal(revoked.id()) << " of "
                << text::ControlChars::ForTerminal(revoked.user()) << ".\n";
  return absl::OkStatus();
}

absl::Status AuthCommands::Share(bool job, const std::string& name, const std::string& user,
                                 const std::string& role) {
  v1::ShareRequest request;
  request.set_name(name);
  request.set_user(user);
  if (absl::AsciiStrToLower(role) == "none") {
    request.set_role(v1::ROLE_UNSPECIFIED);
  } else {
    VERNIER_ASSIGN_OR_RETURN(const v1::Role parsed, auth::ParseUserRole(role, "--role"));
    if (parsed == v1::ADMIN) {
      return absl::InvalidArgumentError(
          "--role admin: a study or job is shared as viewer or developer (or none to unshare)");
    }
    request.set_role(parsed);
  }
  VERNIER_ASSIGN_OR_RETURN(const v1::ShareResponse shared, client_->Share(job, request));
  if (context_.format == OutputFormat::kJson) return PrintJson(shared);
  TablePrinter fields;
  fields.AddRow({job ? "Job:" : "Study:", name});
  fields.AddRow({"Owner:", shared.owner().empty() ? "-" : shared.owner()});
  fields.AddRow({"Shared with:", FormatGrants(shared.grants())});
  fields.Print(*context_.out);
  return absl::OkStatus();
}

}  // namespace vernier::cli
