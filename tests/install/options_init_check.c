/* Every options struct set up with its _init function compiles without warnings under -Wall -Wextra (the idiom the docs show), as C11 and as C++. */
#include <avrokit/avrokit.h>

#ifdef __cplusplus
extern "C"
#endif
size_t options_init_check(void);

size_t options_init_check(void)
{
    avk_arena_options a;
    avk_json_write_options jw;
    avk_json_read_options jr;
    avk_file_reader_options fr;
    avk_file_writer_options fw;
    avk_plan_options p;
    avk_reader_options r;
    avk_schema_options s;
    avk_writer_options w;
    avk_arena_options_init(&a);
    avk_json_write_options_init(&jw);
    avk_json_read_options_init(&jr);
    avk_file_reader_options_init(&fr);
    avk_file_writer_options_init(&fw);
    avk_plan_options_init(&p);
    avk_reader_options_init(&r);
    avk_schema_options_init(&s);
    avk_writer_options_init(&w);
    fw.codec = AVK_CODEC_DEFLATE; /* then set what differs from the defaults */
    return a.struct_size + jw.struct_size + jr.struct_size + fr.struct_size + fw.struct_size +
           p.struct_size + r.struct_size + s.struct_size + w.struct_size;
}
