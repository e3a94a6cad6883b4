#ifndef VFS_COPENSSL_SHIM_H
#define VFS_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/bn.h>
#include <openssl/rsa.h>

// EVP_PKEY_fromdata's selections are composite macros Swift does not import.
static const int VFS_EVP_PKEY_PUBLIC_KEY = EVP_PKEY_PUBLIC_KEY;
static const int VFS_EVP_PKEY_KEYPAIR = EVP_PKEY_KEYPAIR;

#endif
