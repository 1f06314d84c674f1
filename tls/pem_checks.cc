#include "tls/pem_checks.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace vernier::tls {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* certificate) const { X509_free(certificate); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct StoreFree {
  void operator()(X509_STORE* store) const { X509_STORE_free(store); }
};
struct StoreContextFree {
  void operator()(X509_STORE_CTX* context) const { X509_STORE_CTX_free(context); }
};
struct StackFree {
  void operator()(STACK_OF(X509) * stack) const { sk_X509_free(stack); }
};
struct NamesFree {
  void operator()(GENERAL_NAMES* names) const { GENERAL_NAMES_free(names); }
};
using Certificate = std::unique_ptr<X509, X509Free>;

absl::Status Invalid(const PemFile& file, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(file.flag, " ", file.path, ": ", std::string(what)));
}

// OpenSSL's most recent error, cleared; for messages.
std::string OpenSslError() {
  const unsigned long code = ERR_peek_last_error();
  ERR_clear_error();
  if (code == 0) return "";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

std::unique_ptr<BIO, BioFree> ReadBio(const PemFile& file) {
  return std::unique_ptr<BIO, BioFree>(
      BIO_new_mem_buf(file.text.data(), static_cast<int>(file.text.size())));
}

// Every certificate in the file, in order; empty when none parses.
std::vector<Certificate> ParseCertificates(const PemFile& file) {
  std::vector<Certificate> certificates;
  auto bio = ReadBio(file);
  while (X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certificates.emplace_back(certificate);
  }
  ERR_clear_error();  // the end of the file reads as an error
  return certificates;
}

absl::StatusOr<Certificate> FirstCertificate(const PemFile& file) {
  std::vector<Certificate> certificates = ParseCertificates(file);
  if (certificates.empty()) {
    return Invalid(file, "no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
  }
  return std::move(certificates.front());
}

std::string SubjectOf(X509* certificate) {
  char text[256] = {};
  X509_NAME_oneline(X509_get_subject_name(certificate), text, sizeof(text) - 1);
  return text;
}

std::string NameText(const GENERAL_NAME* name) {
  if (name->type == GEN_DNS) {
    const ASN1_IA5STRING* dns = name->d.dNSName;
    return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                       ASN1_STRING_length(dns));
  }
  if (name->type == GEN_IPADD) {
    const ASN1_OCTET_STRING* address = name->d.iPAddress;
    const int length = ASN1_STRING_length(address);
    char text[INET6_ADDRSTRLEN] = {};
    if ((length != 4 && length != 16) ||
        inet_ntop(length == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(address), text,
                  sizeof(text)) == nullptr) {
      return "?";
    }
    return text;
  }
  return "";
}

}  // namespace

absl::StatusOr<PemFile> ReadPemFile(std::string_view flag, const std::string& path) {
  PemFile file{std::string(flag), path, ""};
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return Invalid(file, "no such file");
  if (std::filesystem::is_directory(path, error)) return Invalid(file, "is a directory, not a file");
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return Invalid(file, absl::StrCat("cannot read it: ", std::strerror(errno)));
  std::ostringstream text;
  text << stream.rdbuf();
  file.text = text.str();
  if (file.text.empty()) return Invalid(file, "is empty; expected PEM");
  return file;
}

absl::Status CheckCertificates(const PemFile& certificates, absl::Time now) {
  std::vector<Certificate> parsed = ParseCertificates(certificates);
  if (parsed.empty()) {
    return Invalid(certificates, "no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
  }
  time_t at = absl::ToTimeT(now);
  for (const Certificate& certificate : parsed) {
    if (X509_cmp_time(X509_get0_notAfter(certificate.get()), &at) < 0) {
      return Invalid(certificates, absl::StrCat("the certificate ", SubjectOf(certificate.get()),
                                                " has expired"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCaBundle(const PemFile& bundle, absl::Time now) {
  std::vector<Certificate> parsed = ParseCertificates(bundle);
  if (parsed.empty()) {
    return Invalid(bundle, "no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
  }
  time_t at = absl::ToTimeT(now);
  for (const Certificate& certificate : parsed) {
    if (X509_cmp_time(X509_get0_notAfter(certificate.get()), &at) >= 0) return absl::OkStatus();
  }
  return Invalid(bundle, parsed.size() == 1
                             ? absl::StrCat("the certificate ", SubjectOf(parsed.front().get()),
                                            " has expired")
                             : "every certificate in it has expired");
}

absl::Status CheckPrivateKey(const PemFile& key, const PemFile& certificate) {
  auto bio = ReadBio(key);
  std::unique_ptr<EVP_PKEY, KeyFree> private_key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (private_key == nullptr) {
    const std::string detail = OpenSslError();
    return Invalid(key, absl::StrCat("no unencrypted PEM private key in it (-----BEGIN PRIVATE "
                                     "KEY-----)",
                                     detail.empty() ? "" : ": ", detail));
  }
  absl::StatusOr<Certificate> first = FirstCertificate(certificate);
  if (!first.ok()) return first.status();
  if (X509_check_private_key(first->get(), private_key.get()) != 1) {
    ERR_clear_error();
    return Invalid(key, absl::StrCat("is not the key of the certificate in ", certificate.flag,
                                     " ", certificate.path));
  }
  return absl::OkStatus();
}

absl::Status CheckIssuedBy(const PemFile& certificate, const PemFile& ca, bool client,
                           absl::Time now) {
  std::vector<Certificate> chain = ParseCertificates(certificate);
  if (chain.empty()) {
    return Invalid(certificate, "no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
  }
  std::vector<Certificate> authorities = ParseCertificates(ca);
  if (authorities.empty()) return Invalid(ca, "no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  for (const Certificate& authority : authorities) X509_STORE_add_cert(store.get(), authority.get());
  std::unique_ptr<STACK_OF(X509), StackFree> intermediates(sk_X509_new_null());
  for (size_t i = 1; i < chain.size(); ++i) sk_X509_push(intermediates.get(), chain[i].get());
  std::unique_ptr<X509_STORE_CTX, StoreContextFree> context(X509_STORE_CTX_new());
  X509_STORE_CTX_init(context.get(), store.get(), chain.front().get(), intermediates.get());
  X509_STORE_CTX_set_purpose(context.get(), client ? X509_PURPOSE_SSL_CLIENT : X509_PURPOSE_SSL_SERVER);
  X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(context.get()), absl::ToTimeT(now));
  if (X509_verify_cert(context.get()) != 1) {
    const int error = X509_STORE_CTX_get_error(context.get());
    ERR_clear_error();
    return Invalid(certificate,
                   absl::StrCat("the certificate ", SubjectOf(chain.front().get()),
                                " is not accepted by the CA in ", ca.flag, " ", ca.path, " (",
                                X509_verify_cert_error_string(error), ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckNamesHost(const PemFile& certificate, std::string_view host) {
  absl::StatusOr<Certificate> first = FirstCertificate(certificate);
  if (!first.ok()) return first.status();
  const std::string name(host);
  const bool is_ip = X509_check_ip_asc(first->get(), name.c_str(), 0) == 1;
  ERR_clear_error();
  if (is_ip || X509_check_host(first->get(), name.data(), name.size(), 0, nullptr) == 1) {
    return absl::OkStatus();
  }
  ERR_clear_error();
  std::vector<std::string> names;
  std::unique_ptr<GENERAL_NAMES, NamesFree> alternatives(static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(first->get(), NID_subject_alt_name, nullptr, nullptr)));
  if (alternatives != nullptr) {
    for (int i = 0; i < sk_GENERAL_NAME_num(alternatives.get()); ++i) {
      std::string text = NameText(sk_GENERAL_NAME_value(alternatives.get(), i));
      if (!text.empty()) names.push_back(std::move(text));
    }
  }
  return Invalid(certificate,
                 absl::StrCat("the certificate does not name ", name, " (it names ",
                              names.empty() ? "no host" : absl::StrJoin(names, ", "), ")"));
}

}  // namespace vernier::tls
