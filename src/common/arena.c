/* (being written) */ typedef int avki_placeholder_arena;
