/* Which codecs this build has: the check the codec table and the container reader and writer make before using one. */
#ifndef AVK_CODEC_CODEC_BUILT_H
#define AVK_CODEC_CODEC_BUILT_H

#include "avrokit/codec.h"

/* AVK_OK when codec c was built in; AVK_ERR_UNSUPPORTED with a message
 * naming the codec and the CMake option that builds it when it was not;
 * AVK_ERR_INVALID_ARGUMENT for a number outside the enum. */
avk_status avki_codec_check_built(avk_codec c, avk_error *err);

#endif
