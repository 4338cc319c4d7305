/* Schema fingerprints: CRC-64-AVRO (Rabin), MD5 and SHA-256 of the Parsing Canonical Form. */
#include <stdint.h>
#include <string.h>

#include "avrokit/writer.h"
#include "common/error.h"
#include "schema/schema_internal.h"

/* MD5 and SHA-256 come from nettle; a build without it (AVK_WITH_NETTLE
 * OFF) refuses them rather than carry its own copies of the two hashes. */
#if AVKI_WITH_NETTLE
#include <nettle/md5.h>
#include <nettle/sha2.h>
#endif

/* The specification's fingerprint table ("Schema Fingerprints"):
 *
 *     for (i = 0; i < 256; i++) {
 *         fp = i;
 *         for (j = 0; j < 8; j++) fp = (fp >>> 1) ^ (EMPTY & -(fp & 1L));
 *         FP_TABLE[i] = fp;
 *     }
 *
 * with EMPTY = 0xc15d213aa4d7a795. Written out here rather than filled at
 * run time, so there is no initialisation to race on between threads; the
 * unit test recomputes every entry from the loop above. */
#define RABIN_EMPTY 0xc15d213aa4d7a795ULL

static const uint64_t rabin_table[256] = {
    0x0000000000000000ULL, 0x2cf1cba6b75351faULL, 0x59e3974d6ea6a3f4ULL,
    0x75125cebd9f5f20eULL, 0xb3c72e9add4d47e8ULL, 0x9f36e53c6a1e1612ULL,
    0xea24b9d7b3ebe41cULL, 0xc6d5727104b8b5e6ULL, 0xe5341f40f335c0fbULL,
    0xc9c5d4e644669101ULL, 0xbcd7880d9d93630fULL, 0x902643ab2ac032f5ULL,
    0x56f331da2e788713ULL, 0x7a02fa7c992bd6e9ULL, 0x0f10a69740de24e7ULL,
    0x23e16d31f78d751dULL, 0x48d27cf4afc4ceddULL, 0x6423b75218979f27ULL,
    0x1131ebb9c1626d29ULL, 0x3dc0201f76313cd3ULL, 0xfb15526e72898935ULL,
    0xd7e499c8c5dad8cfULL, 0xa2f6c5231c2f2ac1ULL, 0x8e070e85ab7c7b3bULL,
    0xade663b45cf10e26ULL, 0x8117a812eba25fdcULL, 0xf405f4f93257add2ULL,
    0xd8f43f5f8504fc28ULL, 0x1e214d2e81bc49ceULL, 0x32d0868836ef1834ULL,
    0x47c2da63ef1aea3aULL, 0x6b3311c55849bbc0ULL, 0x91a4f9e95f899dbaULL,
    0xbd55324fe8dacc40ULL, 0xc8476ea4312f3e4eULL, 0xe4b6a502867c6fb4ULL,
    0x2263d77382c4da52ULL, 0x0e921cd535978ba8ULL, 0x7b80403eec6279a6ULL,
    0x57718b985b31285cULL, 0x7490e6a9acbc5d41ULL, 0x58612d0f1bef0cbbULL,
    0x2d7371e4c21afeb5ULL, 0x0182ba427549af4fULL, 0xc757c83371f11aa9ULL,
    0xeba60395c6a24b53ULL, 0x9eb45f7e1f57b95dULL, 0xb24594d8a804e8a7ULL,
    0xd976851df04d5367ULL, 0xf5874ebb471e029dULL, 0x809512509eebf093ULL,
    0xac64d9f629b8a169ULL, 0x6ab1ab872d00148fULL, 0x464060219a534575ULL,
    0x33523cca43a6b77bULL, 0x1fa3f76cf4f5e681ULL, 0x3c429a5d0378939cULL,
    0x10b351fbb42bc266ULL, 0x65a10d106dde3068ULL, 0x4950c6b6da8d6192ULL,
    0x8f85b4c7de35d474ULL, 0xa3747f616966858eULL, 0xd666238ab0937780ULL,
    0xfa97e82c07c0267aULL, 0xa1f3b1a7f6bc745fULL, 0x8d027a0141ef25a5ULL,
    0xf81026ea981ad7abULL, 0xd4e1ed4c2f498651ULL, 0x12349f3d2bf133b7ULL,
    0x3ec5549b9ca2624dULL, 0x4bd7087045579043ULL, 0x6726c3d6f204c1b9ULL,
    0x44c7aee70589b4a4ULL, 0x68366541b2dae55eULL, 0x1d2439aa6b2f1750ULL,
    0x31d5f20cdc7c46aaULL, 0xf700807dd8c4f34cULL, 0xdbf14bdb6f97a2b6ULL,
    0xaee31730b66250b8ULL, 0x8212dc9601310142ULL, 0xe921cd535978ba82ULL,
    0xc5d006f5ee2beb78ULL, 0xb0c25a1e37de1976ULL, 0x9c3391b8808d488cULL,
    0x5ae6e3c98435fd6aULL, 0x7617286f3366ac90ULL, 0x03057484ea935e9eULL,
    0x2ff4bf225dc00f64ULL, 0x0c15d213aa4d7a79ULL, 0x20e419b51d1e2b83ULL,
    0x55f6455ec4ebd98dULL, 0x79078ef873b88877ULL, 0xbfd2fc8977003d91ULL,
    0x9323372fc0536c6bULL, 0xe6316bc419a69e65ULL, 0xcac0a062aef5cf9fULL,
    0x3057484ea935e9e5ULL, 0x1ca683e81e66b81fULL, 0x69b4df03c7934a11ULL,
    0x454514a570c01bebULL, 0x839066d47478ae0dULL, 0xaf61ad72c32bfff7ULL,
    0xda73f1991ade0df9ULL, 0xf6823a3fad8d5c03ULL, 0xd563570e5a00291eULL,
    0xf9929ca8ed5378e4ULL, 0x8c80c04334a68aeaULL, 0xa0710be583f5db10ULL,
    0x66a47994874d6ef6ULL, 0x4a55b232301e3f0cULL, 0x3f47eed9e9ebcd02ULL,
    0x13b6257f5eb89cf8ULL, 0x788534ba06f12738ULL, 0x5474ff1cb1a276c2ULL,
    0x2166a3f7685784ccULL, 0x0d976851df04d536ULL, 0xcb421a20dbbc60d0ULL,
    0xe7b3d1866cef312aULL, 0x92a18d6db51ac324ULL, 0xbe5046cb024992deULL,
    0x9db12bfaf5c4e7c3ULL, 0xb140e05c4297b639ULL, 0xc452bcb79b624437ULL,
    0xe8a377112c3115cdULL, 0x2e7605602889a02bULL, 0x0287cec69fdaf1d1ULL,
    0x7795922d462f03dfULL, 0x5b64598bf17c5225ULL, 0xc15d213aa4d7a795ULL,
    0xedacea9c1384f66fULL, 0x98beb677ca710461ULL, 0xb44f7dd17d22559bULL,
    0x729a0fa0799ae07dULL, 0x5e6bc406cec9b187ULL, 0x2b7998ed173c4389ULL,
    0x0788534ba06f1273ULL, 0x24693e7a57e2676eULL, 0x0898f5dce0b13694ULL,
    0x7d8aa9373944c49aULL, 0x517b62918e179560ULL, 0x97ae10e08aaf2086ULL,
    0xbb5fdb463dfc717cULL, 0xce4d87ade4098372ULL, 0xe2bc4c0b535ad288ULL,
    0x898f5dce0b136948ULL, 0xa57e9668bc4038b2ULL, 0xd06cca8365b5cabcULL,
    0xfc9d0125d2e69b46ULL, 0x3a487354d65e2ea0ULL, 0x16b9b8f2610d7f5aULL,
    0x63abe419b8f88d54ULL, 0x4f5a2fbf0fabdcaeULL, 0x6cbb428ef826a9b3ULL,
    0x404a89284f75f849ULL, 0x3558d5c396800a47ULL, 0x19a91e6521d35bbdULL,
    0xdf7c6c14256bee5bULL, 0xf38da7b29238bfa1ULL, 0x869ffb594bcd4dafULL,
    0xaa6e30fffc9e1c55ULL, 0x50f9d8d3fb5e3a2fULL, 0x7c0813754c0d6bd5ULL,
    0x091a4f9e95f899dbULL, 0x25eb843822abc821ULL, 0xe33ef64926137dc7ULL,
    0xcfcf3def91402c3dULL, 0xbadd610448b5de33ULL, 0x962caaa2ffe68fc9ULL,
    0xb5cdc793086bfad4ULL, 0x993c0c35bf38ab2eULL, 0xec2e50de66cd5920ULL,
    0xc0df9b78d19e08daULL, 0x060ae909d526bd3cULL, 0x2afb22af6275ecc6ULL,
    0x5fe97e44bb801ec8ULL, 0x7318b5e20cd34f32ULL, 0x182ba427549af4f2ULL,
    0x34da6f81e3c9a508ULL, 0x41c8336a3a3c5706ULL, 0x6d39f8cc8d6f06fcULL,
    0xabec8abd89d7b31aULL, 0x871d411b3e84e2e0ULL, 0xf20f1df0e77110eeULL,
    0xdefed65650224114ULL, 0xfd1fbb67a7af3409ULL, 0xd1ee70c110fc65f3ULL,
    0xa4fc2c2ac90997fdULL, 0x880de78c7e5ac607ULL, 0x4ed895fd7ae273e1ULL,
    0x62295e5bcdb1221bULL, 0x173b02b01444d015ULL, 0x3bcac916a31781efULL,
    0x60ae909d526bd3caULL, 0x4c5f5b3be5388230ULL, 0x394d07d03ccd703eULL,
    0x15bccc768b9e21c4ULL, 0xd369be078f269422ULL, 0xff9875a13875c5d8ULL,
    0x8a8a294ae18037d6ULL, 0xa67be2ec56d3662cULL, 0x859a8fdda15e1331ULL,
    0xa96b447b160d42cbULL, 0xdc791890cff8b0c5ULL, 0xf088d33678abe13fULL,
    0x365da1477c1354d9ULL, 0x1aac6ae1cb400523ULL, 0x6fbe360a12b5f72dULL,
    0x434ffdaca5e6a6d7ULL, 0x287cec69fdaf1d17ULL, 0x048d27cf4afc4cedULL,
    0x719f7b249309bee3ULL, 0x5d6eb082245aef19ULL, 0x9bbbc2f320e25affULL,
    0xb74a095597b10b05ULL, 0xc25855be4e44f90bULL, 0xeea99e18f917a8f1ULL,
    0xcd48f3290e9addecULL, 0xe1b9388fb9c98c16ULL, 0x94ab6464603c7e18ULL,
    0xb85aafc2d76f2fe2ULL, 0x7e8fddb3d3d79a04ULL, 0x527e16156484cbfeULL,
    0x276c4afebd7139f0ULL, 0x0b9d81580a22680aULL, 0xf10a69740de24e70ULL,
    0xddfba2d2bab11f8aULL, 0xa8e9fe396344ed84ULL, 0x8418359fd417bc7eULL,
    0x42cd47eed0af0998ULL, 0x6e3c8c4867fc5862ULL, 0x1b2ed0a3be09aa6cULL,
    0x37df1b05095afb96ULL, 0x143e7634fed78e8bULL, 0x38cfbd924984df71ULL,
    0x4ddde17990712d7fULL, 0x612c2adf27227c85ULL, 0xa7f958ae239ac963ULL,
    0x8b08930894c99899ULL, 0xfe1acfe34d3c6a97ULL, 0xd2eb0445fa6f3b6dULL,
    0xb9d81580a22680adULL, 0x9529de261575d157ULL, 0xe03b82cdcc802359ULL,
    0xccca496b7bd372a3ULL, 0x0a1f3b1a7f6bc745ULL, 0x26eef0bcc83896bfULL,
    0x53fcac5711cd64b1ULL, 0x7f0d67f1a69e354bULL, 0x5cec0ac051134056ULL,
    0x701dc166e64011acULL, 0x050f9d8d3fb5e3a2ULL, 0x29fe562b88e6b258ULL,
    0xef2b245a8c5e07beULL, 0xc3daeffc3b0d5644ULL, 0xb6c8b317e2f8a44aULL,
    0x9a3978b155abf5b0ULL
};

uint64_t avk_rabin64(const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    uint64_t fp = RABIN_EMPTY;
    size_t i;
    for (i = 0; i < len; i++)
        fp = (fp >> 8) ^ rabin_table[(fp ^ p[i]) & 0xff];
    return fp;
}

/* The digest being computed while the canonical form streams through a
 * small writer buffer: the form is never held whole in memory. */
typedef struct fp_state {
    avk_fingerprint_algo algo;
    uint64_t rabin;
#if AVKI_WITH_NETTLE
    union {
        struct md5_ctx md5;
        struct sha256_ctx sha256;
    } u;
#endif
} fp_state;

static avk_status fp_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    fp_state *s = (fp_state *)ctx;
    const uint8_t *p = (const uint8_t *)data;
    size_t i;
    (void)err;
    switch (s->algo) {
    case AVK_FINGERPRINT_RABIN:
        for (i = 0; i < len; i++)
            s->rabin = (s->rabin >> 8) ^ rabin_table[(s->rabin ^ p[i]) & 0xff];
        break;
#if AVKI_WITH_NETTLE
    case AVK_FINGERPRINT_MD5:
        md5_update(&s->u.md5, len, p);
        break;
    case AVK_FINGERPRINT_SHA256:
        sha256_update(&s->u.sha256, len, p);
        break;
#endif
    default: break;
    }
    return AVK_OK;
}

int avk_fingerprint_available(avk_fingerprint_algo algo)
{
    switch (algo) {
    case AVK_FINGERPRINT_RABIN: return 1;
    case AVK_FINGERPRINT_MD5:
    case AVK_FINGERPRINT_SHA256: return AVKI_WITH_NETTLE;
    }
    return 0;
}

avk_status avk_type_fingerprint(const avk_type *t, avk_fingerprint_algo algo, uint8_t out[32],
                                size_t *len, avk_error *err)
{
    fp_state s;
    avk_writer w;
    avk_writer_options opts;
    avk_status st;
    size_t i;
    if (!t || !out || !len)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_type_fingerprint: %s is NULL",
                              !t ? "type" : !out ? "out" : "len");
    memset(&s, 0, sizeof s);
    s.algo = algo;
    switch (algo) {
    case AVK_FINGERPRINT_RABIN: s.rabin = RABIN_EMPTY; break;
#if AVKI_WITH_NETTLE
    case AVK_FINGERPRINT_MD5: md5_init(&s.u.md5); break;
    case AVK_FINGERPRINT_SHA256: sha256_init(&s.u.sha256); break;
#else
    case AVK_FINGERPRINT_MD5:
    case AVK_FINGERPRINT_SHA256:
        return avki_error_set(err, AVK_ERR_UNSUPPORTED, AVK_OFFSET_UNKNOWN,
                              "%s fingerprints need nettle, which was not built into this "
                              "avrokit (configure with -DAVK_WITH_NETTLE=ON)",
                              algo == AVK_FINGERPRINT_MD5 ? "MD5" : "SHA-256");
#endif
    default:
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "unknown fingerprint algorithm %d", (int)algo);
    }
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 4096; /* most canonical forms fit: one sink call */
    AVK_TRY(avk_writer_init_sink(&w, fp_sink, &s, &opts, err));
    st = avk_type_write_canonical(t, &w, err);
    if (st == AVK_OK)
        st = avk_writer_flush(&w, err);
    avk_writer_destroy(&w);
    if (st != AVK_OK)
        return st;
    switch (algo) {
    case AVK_FINGERPRINT_RABIN:
        /* The specification's fingerprint is the 64-bit value; as bytes
         * (single-object encoding, the Python tables) it is little-endian. */
        for (i = 0; i < 8; i++)
            out[i] = (uint8_t)(s.rabin >> (8 * i));
        *len = 8;
        break;
#if AVKI_WITH_NETTLE
    case AVK_FINGERPRINT_MD5:
        md5_digest(&s.u.md5, MD5_DIGEST_SIZE, out);
        *len = MD5_DIGEST_SIZE;
        break;
    case AVK_FINGERPRINT_SHA256:
        sha256_digest(&s.u.sha256, SHA256_DIGEST_SIZE, out);
        *len = SHA256_DIGEST_SIZE;
        break;
#endif
    default: break;
    }
    return AVK_OK;
}
