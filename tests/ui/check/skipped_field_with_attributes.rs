use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(skip, title = "Cache", min_length = 1)]
    cache: String,
}

fn main() {}
