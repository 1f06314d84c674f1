#ifndef VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_URL_H_
#define VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_URL_H_

#include <string>
#include <string_view>

namespace vernier::storage {

// `url` with its password, if any (postgresql://USER:PASSWORD@...,
// ?password=..., or password=... in a key=value string), replaced by "***",
// for logs and error messages.
std::string RedactPostgresUrl(std::string_view url);

// `url` with `name=value` added to its query string unless it sets `name`.
std::string WithUrlParameter(std::string_view url, std::string_view name, std::string_view value);

// `url` naming database `database` instead of the one it names, if any.
std::string WithDatabase(std::string_view url, std::string_view database);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_URL_H_
