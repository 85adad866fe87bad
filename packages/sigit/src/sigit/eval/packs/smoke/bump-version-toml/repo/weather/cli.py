def main():
    print("sunny")
