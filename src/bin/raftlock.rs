fn main() {
    println!("raftlock: the headless CLI arrives with the lock-service issue");
}
